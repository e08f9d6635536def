package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/webmcp-bridge/bridge/internal/cliflag"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/httpserve"
	"github.com/webmcp-bridge/bridge/shim/token"
)

// httpFlags are the flags of `webmcp-shim --http ADDR`.
type httpFlags struct {
	addr        string
	allowRemote bool
	hosts       cliflag.Strings
	origins     cliflag.Strings
}

// serveHTTP runs the same MCP server as serve, over Streamable HTTP on
// f.addr, until ctx ends.
func serveHTTP(ctx context.Context, env *Env, f *httpFlags) int {
	if err := httpserve.CheckAddr(f.addr, f.allowRemote); err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitUsage
	}
	path, err := token.Path()
	var tok string
	if err == nil {
		tok, err = token.Load(path)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitFail
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v (another program has the port? pick another one)\n", err)
		return ExitFail
	}
	// Warnings (refused requests among them) and errors; hosts coming and
	// going are for --verbose, as over stdio.
	log := env.logger(slog.LevelWarn)
	srv := shim.New(shim.Options{
		Timeout:   env.Timeout,
		MaxResult: int(env.MaxResult),
		Logger:    log,
		SDKLogger: env.logger(slog.LevelWarn),
		Version:   version(),
	})
	opts := httpserve.Options{Token: tok, Hosts: f.hosts, Origins: f.origins, Logger: log}
	h := httpserve.Handler(srv.MCP(), opts)
	fmt.Fprintf(env.Stderr, "webmcp-shim: serving MCP (Streamable HTTP) at http://%s%s\n"+
		"  clients send the header Authorization: Bearer TOKEN; webmcp-shim token prints TOKEN (from %s)\n",
		ln.Addr(), httpserve.Path, path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { srv.Watch(ctx) })
	err = httpserve.Serve(ctx, ln, h, opts)
	cancel()
	wg.Wait()
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitFail
	}
	return ExitOK
}
