package shim

import (
	"context"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// MaxAgents bounds the agents (MCP sessions) a shim tells its hosts about;
// past it, the oldest are left out of the list (their calls still work).
const MaxAgents = 64

// agents are the MCP sessions the server serves, each with an id of its
// own ("a1", "a2", …): one on stdio, any number over HTTP. The hosts hear
// of every one (the client message), and the calls and requests made for
// one carry its id, so that the extension names the right agent and keeps
// one agent's doings (the tabs open_page opened) apart from another's.
type agents struct {
	mu   sync.Mutex
	next int
	list []agent // oldest first
	// changed runs, outside mu, with the new list after each change.
	changed func([]webmcp.AgentInfo)
}

type agent struct {
	ss   *mcp.ServerSession
	info webmcp.AgentInfo
}

// id returns the id of ss's agent, making one when ss's client named
// itself (info) for the first time; "" while it has not.
func (a *agents) id(ss *mcp.ServerSession, info *mcp.Implementation) string {
	a.mu.Lock()
	for _, e := range a.list {
		if e.ss == ss {
			a.mu.Unlock()
			return e.info.ID
		}
	}
	if info == nil {
		a.mu.Unlock()
		return ""
	}
	a.next++
	e := agent{ss, webmcp.AgentInfo{ID: "a" + strconv.Itoa(a.next), Name: info.Name, Version: info.Version}}
	a.list = append(a.list, e)
	now := a.infos()
	a.mu.Unlock()
	a.changed(now)
	go func() {
		ss.Wait() // the session ended: the client left, or it timed out
		a.drop(ss)
	}()
	return e.info.ID
}

// drop forgets ss's agent.
func (a *agents) drop(ss *mcp.ServerSession) {
	a.mu.Lock()
	for i, e := range a.list {
		if e.ss == ss {
			a.list = append(a.list[:i], a.list[i+1:]...)
			now := a.infos()
			a.mu.Unlock()
			a.changed(now)
			return
		}
	}
	a.mu.Unlock()
}

// infos is the list the hosts hear: the newest MaxAgents. a.mu is held.
func (a *agents) infos() []webmcp.AgentInfo {
	list := a.list[max(0, len(a.list)-MaxAgents):]
	out := make([]webmcp.AgentInfo, len(list))
	for i, e := range list {
		out[i] = e.info
	}
	return out
}

// agentMiddleware gives every request the agent of its MCP session: made
// at initialize (or at the first request of a client of protocol
// 2026-07-28, which names itself in each request's _meta), and put in the
// request's context for the calls and requests it makes (hostlink.WithAgent).
func (s *Server) agentMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			return next(ctx, method, req)
		}
		var info *mcp.Implementation
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
			info = p.ClientInfo
		} else if r, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
			info = r.ClientInfo()
		}
		if id := s.agents.id(ss, info); id != "" {
			ctx = hostlink.WithAgent(ctx, id)
		}
		return next(ctx, method, req)
	}
}
