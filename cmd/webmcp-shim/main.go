// Command webmcp-shim is the MCP server that agents start: it gives them the
// tools of the web pages open in the user's browser, through the WebMCP
// bridge extension. Run webmcp-shim --help for its commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/webmcp-bridge/bridge/internal/profiling"
	"github.com/webmcp-bridge/bridge/shim/cli"
)

func main() {
	stopProfile := profiling.Start("webmcp-shim") // with $WEBMCP_CPUPROFILE only
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}
