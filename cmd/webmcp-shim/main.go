// Command webmcp-shim is the MCP server that agents start: it gives them the
// tools of the web pages open in the user's browser, through the WebMCP
// bridge extension. Run webmcp-shim --help for its commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/webmcp-bridge/bridge/internal/profiling"
	"github.com/webmcp-bridge/bridge/internal/stopevent"
	"github.com/webmcp-bridge/bridge/shim/cli"
)

func main() {
	tuneGC()
	stopProfile := profiling.Start("webmcp-shim") // with $WEBMCP_CPUPROFILE only
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, stopEvent := stopevent.Notify(ctx) // Windows: what SIGTERM is on Unix
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopEvent()
	stop()
	stopProfile()
	os.Exit(code)
}

// tuneGC lets the heap grow to three times what is live before a collection
// (GOGC=200, not 100), unless GOGC or GOMEMLIMIT says otherwise: the MCP
// SDK allocates tens of KiB per message it decodes, and with the default
// the shim spent a third of its CPU collecting them. A soft limit of
// 256 MiB brings collections back earlier around big arguments and
// results. The live heap is a few MiB, so the shim stays near 20 MiB.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(256 << 20)
	}
}
