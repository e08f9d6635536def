package shim

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
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
	changed func([]protocol.AgentInfo)
}

type agent struct {
	ss   *mcp.ServerSession // nil for an agent of stateless requests once its request ended
	info protocol.AgentInfo
	// key is set for an agent that names itself in each request (MCP
	// 2026-07-28): its name and version. Over HTTP such a client has no
	// session (each request has a session of its own, which ends with
	// it), so its requests are one agent by that name, until it has made
	// none for StatelessAgentIdle.
	key  string
	seen time.Time
}

// StatelessAgentIdle is how long an agent of stateless requests (MCP
// 2026-07-28 over HTTP) stays known without a request: as long as an HTTP
// session of an older client lasts unused.
const StatelessAgentIdle = time.Hour

// id returns the id of ss's agent, making one when ss's client named
// itself (info) for the first time; "" while it has not. perRequest says
// that info came with the request itself (MCP 2026-07-28), not with an
// initialize.
func (a *agents) id(ss *mcp.ServerSession, info *mcp.Implementation, perRequest bool) string {
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
	now := time.Now()
	swept := a.sweep(now)
	if perRequest {
		key := info.Name + "\x00" + info.Version
		for i := range a.list {
			if e := &a.list[i]; e.key == key {
				e.seen = now
				if e.ss == nil {
					e.ss = ss
					a.forgetWhenDone(ss, true)
				}
				id := e.info.ID
				list := a.infos()
				a.mu.Unlock()
				if swept {
					a.changed(list)
				}
				return id
			}
		}
	}
	a.next++
	e := agent{ss: ss, info: protocol.AgentInfo{ID: "a" + strconv.Itoa(a.next), Name: info.Name, Version: info.Version}, seen: now}
	if perRequest {
		e.key = info.Name + "\x00" + info.Version
	}
	a.list = append(a.list, e)
	list := a.infos()
	a.forgetWhenDone(ss, perRequest)
	a.mu.Unlock()
	a.changed(list)
	return e.info.ID
}

// forgetWhenDone drops ss's agent when ss ends (the client left, or its
// session timed out); an agent of per-request names (keep) stays, without
// its session, until it has been idle for StatelessAgentIdle.
func (a *agents) forgetWhenDone(ss *mcp.ServerSession, keep bool) {
	go func() {
		ss.Wait()
		if !keep {
			a.drop(ss)
			return
		}
		a.mu.Lock()
		for i := range a.list {
			if a.list[i].ss == ss {
				a.list[i].ss = nil
			}
		}
		a.mu.Unlock()
	}()
}

// sweep forgets the agents of per-request names that made no request for
// StatelessAgentIdle, and says whether it forgot any. a.mu is held.
func (a *agents) sweep(now time.Time) bool {
	n := len(a.list)
	a.list = slices.DeleteFunc(a.list, func(e agent) bool {
		return e.key != "" && e.ss == nil && now.Sub(e.seen) > StatelessAgentIdle
	})
	return len(a.list) != n
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
func (a *agents) infos() []protocol.AgentInfo {
	list := a.list[max(0, len(a.list)-MaxAgents):]
	out := make([]protocol.AgentInfo, len(list))
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
		perRequest := false
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
			info = p.ClientInfo
		} else if r, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
			info, perRequest = r.ClientInfo(), true
		}
		if id := s.agents.id(ss, info, perRequest); id != "" {
			ctx = hostlink.WithAgent(ctx, id)
		}
		return next(ctx, method, req)
	}
}
