package shim

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// InstructionsWait bounds how long initialize waits for the hosts whose
// sockets exist to send their state, so that the instructions name the
// context providers known then. Without a host socket it does not wait.
const InstructionsWait = 300 * time.Millisecond

// Instructions are the MCP instructions as of now: the bridge's brief, the
// meaning of <ui_context> and <pinned_context>, and the descriptions of
// the context providers the connected browsers know.
func (s *Server) Instructions() string {
	_, views := s.hostViews()
	return uicontext.Instructions(uicontext.Descriptions(views))
}

// instructionsMiddleware fills the instructions of initialize (and of
// server/discover, its stateless successor) from the current state: the
// SDK takes ServerOptions.Instructions once, at New.
func (s *Server) instructionsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "initialize" && method != "server/discover" {
			return next(ctx, method, req)
		}
		s.awaitHosts(ctx, InstructionsWait)
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			r.Instructions = s.Instructions()
		case *mcp.DiscoverResult:
			r.Instructions = s.Instructions()
		}
		return res, nil
	}
}

// awaitHosts waits, at most max, until the hosts whose sockets are in the
// runtime directory are connected and have sent their state. It returns at
// once when there is no host socket.
func (s *Server) awaitHosts(ctx context.Context, max time.Duration) {
	if paths, _ := endpoint.HostSockets(s.opts.Dir); len(paths) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	select {
	case <-s.pool.Scanned():
	case <-ctx.Done():
		return
	}
	for _, c := range s.pool.Conns() {
		select {
		case <-c.Ready():
		case <-c.Done():
		case <-ctx.Done():
			return
		}
	}
}
