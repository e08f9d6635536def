package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/webmcp-bridge/bridge/demo"
)

func demoCommand() *Command {
	return &Command{
		Name:    "demo",
		Args:    "[--addr 127.0.0.1:8765]",
		Summary: "serve the demo trace viewer (WebMCP tools and context providers) on loopback",
		Run:     runDemo,
	}
}

// DemoAddr is where `webmcp-shim demo` listens unless told otherwise.
const DemoAddr = "127.0.0.1:8765"

func runDemo(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("demo")
	addr := fs.String("addr", DemoAddr, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim demo: --addr %q: %v (want HOST:PORT, e.g. %s)\n", *addr, err, DemoAddr)
		return ExitUsage
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(env.Stderr, "webmcp-shim demo: --addr %q is not a loopback address; the demo only listens on this machine (e.g. %s)\n", *addr, DemoAddr)
		return ExitUsage
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim demo: %v (another program has the port? try --addr 127.0.0.1:0)\n", err)
		return ExitFail
	}
	url := "http://" + ln.Addr().String() + "/"
	if host == "localhost" {
		url = "http://localhost:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port) + "/"
	}
	fmt.Fprintf(env.Stdout, `Serving the demo trace viewer at
  %s
It runs here until you stop it (Ctrl-C): run the next commands in a second
terminal. Open it in the browser with the WebMCP bridge extension, then ask
your agent to use its tools (find_slices, select_slice, …), or click a slice
and run
  webmcp-shim context
`, url)
	srv := &http.Server{Handler: demo.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(env.Stderr, "webmcp-shim demo: %v\n", err)
		return ExitFail
	}
	return ExitOK
}
