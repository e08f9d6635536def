package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/shim"
)

// connect starts a Server for a one-shot command, connected to every host
// that answers. It prints what went wrong with the others; code is ExitFail
// when a host did not answer, else ExitOK.
func connect(ctx context.Context, env *Env) (srv *shim.Server, code int) {
	// One-shot commands log only warnings and worse, so that their output
	// stays readable.
	srv = shim.New(shim.Options{Timeout: env.Timeout, Logger: env.logger(slog.LevelWarn), Version: version()})
	warnings, errs := srv.Connect(ctx, ConnectWait)
	for _, w := range warnings {
		if errors.Is(w, endpoint.ErrUntrusted) {
			// Not a passing hitch: someone else's file where the
			// user's host should be.
			errs = append(errs, w)
			continue
		}
		fmt.Fprintf(env.Stderr, "webmcp-shim: warning: %v\n", w)
	}
	for _, e := range errs {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", e)
	}
	if len(errs) > 0 {
		return srv, ExitFail
	}
	return srv, ExitOK
}
