package shim

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// BrowserWait bounds how long a call that needs a browser waits for one
// when none is connected, before it says so. An agent's first call often
// comes as the browser starts: the extension launches its host, the shim
// finds the host's socket (it looks every hosts.DefaultInterval) and the
// host sends the browser's state, all within a second or two; a host that
// restarts is back within one (docs/limits.md, "What survives what"). The wait
// never goes past the call's --timeout or the agent's cancellation, and
// ends as soon as a host has sent its state.
const BrowserWait = 5 * time.Second

// hasBrowser reports whether a browser is connected: a host that has
// sent its state and its browser's hello.
func (s *Server) hasBrowser() bool {
	for _, c := range s.pool.Conns() {
		select {
		case <-c.Done():
		case <-c.Ready():
			if c.Browser() != nil {
				return true
			}
		default:
		}
	}
	return false
}

// awaitBrowser waits until a browser is connected (a host has sent its
// state), at most Options.BrowserWait and never past ctx, and reports
// whether one is. It does not wait in a one-shot command's Server
// (Connect): that looked for hosts once and finds no more.
func (s *Server) awaitBrowser(ctx context.Context) bool {
	if s.hasBrowser() {
		return true
	}
	wait := s.opts.BrowserWait
	if wait == 0 {
		wait = BrowserWait
	}
	if wait < 0 || s.oneShot.Load() || s.pool.DirErr() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	s.log.Debug("no browser connected yet; waiting for one", "at most", wait)
	for {
		// A host's first state closes Ready after the change it brings
		// was signalled, hence hostReady; the browser's hello is a change.
		ready, changed := s.hostReady.wait(), s.changes.wait()
		if s.hasBrowser() {
			return true
		}
		select {
		case <-ready:
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// deadlineKey keys the time by which a tools/call must be answered (its
// --timeout, counted from its arrival) in the call's context.
type deadlineKey struct{}

// withCallDeadline notes in ctx when a call that arrives now runs out of
// its --timeout, so that a wait before its handler runs (for a browser)
// counts towards it.
func (s *Server) withCallDeadline(ctx context.Context) context.Context {
	if s.opts.Timeout <= 0 {
		return ctx
	}
	if _, ok := ctx.Value(deadlineKey{}).(time.Time); ok {
		return ctx
	}
	return context.WithValue(ctx, deadlineKey{}, time.Now().Add(s.opts.Timeout))
}

// callContext bounds ctx by the call's --timeout, counted from the call's
// arrival when withCallDeadline noted it, else from now.
func (s *Server) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	dl, ok := ctx.Value(deadlineKey{}).(time.Time)
	if !ok {
		dl = time.Now().Add(s.opts.Timeout)
	}
	return context.WithDeadline(ctx, dl)
}

// exposed reports whether name is one of the agent's tools now.
func (s *Server) exposed(name string) bool {
	if _, ok := s.bridge[name]; ok {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key, ok := s.names.Lookup(name)
	return ok && s.tools[key] != nil
}

// callMiddleware bounds every tools/call by its --timeout from its arrival,
// and lets a call of a page tool that is not there while no browser is
// connected (the agent's first call as the browser starts, or one during
// a host's restart) wait for a browser before the SDK looks the tool up:
// the browser's tools come with its state. With no browser after the wait
// the call is answered that none is connected, and what to start.
func (s *Server) callMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		growStack()
		ctx = s.withCallDeadline(ctx)
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p == nil || s.exposed(p.Name) || s.hasBrowser() {
			return next(ctx, method, req)
		}
		wctx, cancel := s.callContext(ctx)
		s.awaitBrowser(wctx)
		cancel()
		if !s.exposed(p.Name) && !s.hasBrowser() {
			return results.Failure(protocol.CodeNoBrowser, results.NotRun, "tool %s is not available: %s", p.Name, results.NoBrowser), nil
		}
		return next(ctx, method, req)
	}
}
