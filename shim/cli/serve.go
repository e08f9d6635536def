package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/stdio"
)

// serve runs the MCP server on stdin/stdout until the client disconnects or
// ctx ends.
func serve(ctx context.Context, env *Env) int {
	if f, ok := env.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(env.Stderr, "webmcp-shim: serving MCP on stdin/stdout; agents start it this way. Try webmcp-shim --help, or webmcp-shim status.")
		}
	}
	// The agent shows the shim's stderr (an Inspector session does):
	// warnings and errors only; hosts coming and going, and the SDK's
	// session chatter, are for --verbose.
	srv := shim.New(shim.Options{
		Timeout:   env.Timeout,
		MaxResult: int(env.MaxResult),
		Logger:    env.logger(slog.LevelWarn),
		// A notification under way as the agent exits fails on the closed
		// pipe: that is the agent going, not trouble (clientGoneHandler).
		SDKLogger: slog.New(clientGoneHandler{env.logger(slog.LevelWarn).Handler()}),
		Version:   version(),
	})
	// Our stdio transport answers a message over the size limit instead
	// of ending the session (see package stdio).
	t := &stdio.Transport{In: env.Stdin, Out: env.Stdout, Logger: env.logger(slog.LevelWarn)}
	if err := srv.Serve(ctx, t); err != nil && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitFail
	}
	return ExitOK
}
