package shim_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/httpserve"
)

// agentsIn returns the agents of the first shim of a sessions message, nil
// if it has none.
func agentsIn(m *protocol.Message) []protocol.AgentInfo {
	for _, s := range m.Sessions {
		return s.Client.Agents
	}
	return nil
}

// TestAgentReachesTheBrowser: the MCP client's name and version from
// initialize reach the extension in the host's sessions message.
func TestAgentReachesTheBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	_, ext, _ := setup(t, bridgetest.NewPage(), []protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)
	m, err := ext.Await(ctx, func(m *protocol.Message) bool { return len(agentsIn(m)) > 0 })
	if err != nil {
		t.Fatalf("no sessions message named the agent: %v", err)
	}
	want := []protocol.AgentInfo{{ID: "a1", Name: bridgetest.ClientName, Version: bridgetest.ClientVersion}}
	if diff := cmp.Diff(want, agentsIn(m)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
}

// TestAgentsOfOneShim: one shim serving two MCP sessions (as over HTTP)
// tells the browser of both, says which one each call is for, and drops the
// one that leaves.
func TestAgentsOfOneShim(t *testing.T) {
	ctx := bridgetest.Context(t)
	p, ext, srv, _ := echoShim(t)

	serve := func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		return ct
	}
	awaitAgents := func(what string, want ...protocol.AgentInfo) {
		t.Helper()
		var last []protocol.AgentInfo
		if _, err := ext.Await(ctx, func(m *protocol.Message) bool {
			if m.Type != protocol.TypeSessions {
				return false
			}
			last = agentsIn(m)
			return slices.Equal(last, want)
		}); err != nil {
			t.Fatalf("%s: no sessions message with agents %v (last %v): %v", what, want, last, err)
		}
	}
	first := bridgetest.ConnectMCP(t, serve())
	first.AwaitTools(ctx, "echo", bridgetest.Has("echo"))
	one := first.Session
	a1 := protocol.AgentInfo{ID: "a1", Name: bridgetest.ClientName, Version: bridgetest.ClientVersion}
	awaitAgents("the first agent", a1)
	two, err := mcp.NewClient(&mcp.Implementation{Name: "agent-two", Version: "2.0"}, nil).Connect(ctx, serve(), &mcp.ClientSessionOptions{ProtocolVersion: bridgetest.ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { two.Close() })
	a2 := protocol.AgentInfo{ID: "a2", Name: "agent-two", Version: "2.0"}
	awaitAgents("the second agent", a1, a2)

	for _, c := range []struct {
		cs    *mcp.ClientSession
		agent string
	}{{one, "a1"}, {two, "a2"}, {one, "a1"}} {
		before := len(p.Calls())
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("call echo: %v %v", err, res)
		}
		calls := p.Calls()
		if len(calls) != before+1 || calls[before].Agent != c.agent {
			t.Errorf("the call of %s reached the page as %+v, want agent %q", c.agent, calls[len(calls)-1], c.agent)
		}
	}

	two.Close()
	awaitAgents("the second left", a1)
}

// TestStatelessAgent: a client of MCP 2026-07-28 over HTTP has no session
// (each request has one of its own, which ends with it): its requests are
// one agent by its name and version, not a new agent each, and another
// client is another agent.
func TestStatelessAgent(t *testing.T) {
	ctx := bridgetest.Context(t)
	p, ext, srv, wctx := echoShim(t)
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })

	connect := statelessClients(t, srv, wctx)
	call := func(cs *mcp.ClientSession) string {
		t.Helper()
		before := len(p.Calls())
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("call echo: %v %v", err, res)
		}
		calls := p.Calls()
		if len(calls) != before+1 {
			t.Fatalf("%d calls reached the page, want 1", len(calls)-before)
		}
		return calls[before].Agent
	}
	one := connect("stateless-one")
	first, second := call(one), call(one)
	if first == "" || first != second {
		t.Errorf("two calls of one stateless client came as agents %q and %q, want one agent", first, second)
	}
	two := connect("stateless-two")
	if other := call(two); other == "" || other == first {
		t.Errorf("the second client's call came as agent %q, the first's as %q: want two agents", other, first)
	}
	want := []protocol.AgentInfo{{ID: first, Name: "stateless-one", Version: "1.0"}}
	if _, err := ext.Await(ctx, func(m *protocol.Message) bool {
		return m.Type == protocol.TypeSessions && len(agentsIn(m)) == 2 && agentsIn(m)[0] == want[0]
	}); err != nil {
		t.Errorf("the browser never heard of both agents: %v", err)
	}
}

// statelessClients serves srv over HTTP until the test ends, and returns
// a function that connects a client of MCP 2026-07-28 (no session) of the
// given name, version 1.0.
func statelessClients(t *testing.T, srv *shim.Server, wctx context.Context) func(name string) *mcp.ClientSession {
	const token = "0123456789abcdef0123456789abcdef"
	opts := httpserve.Options{Token: token}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	sctx, stop := context.WithCancel(wctx)
	go func() { served <- httpserve.Serve(sctx, ln, httpserve.Handler(srv.MCP(), opts), opts) }()
	t.Cleanup(func() { stop(); <-served })
	return func(name string) *mcp.ClientSession {
		hc := &http.Client{Transport: bearer(token)}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(bridgetest.Context(t),
			&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + httpserve.Path, HTTPClient: hc},
			&mcp.ClientSessionOptions{ProtocolVersion: httpserve.StatelessRevision})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
}

// TestStatelessCloseTab: two stateless clients of one name and version
// are one agent to the browser, so close_tab takes from such a client only
// the closeKey that open_page answered it: the other cannot close its tab.
func TestStatelessCloseTab(t *testing.T) {
	ctx := bridgetest.Context(t)
	p, ext, srv, wctx := echoShim(t)
	var closed atomic.Int32
	p.HandleRequest(protocol.MethodOpenPage, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		ext.UpdateTab(protocol.Tab{ID: 40, URL: "https://shop.example/", Title: "Opened", Origin: "https://shop.example", Allowed: true})
		return json.RawMessage(`{"tabId":40,"url":"https://shop.example/","title":"Opened","tools":[]}`), nil
	})
	p.HandleRequest(protocol.MethodCloseTab, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		closed.Add(1)
		return json.RawMessage(`{}`), nil
	})
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	connect := statelessClients(t, srv, wctx)
	owner, other := connect("twin"), connect("twin")

	res, err := owner.CallTool(ctx, &mcp.CallToolParams{Name: "open_page", Arguments: map[string]any{"url": "https://shop.example/"}})
	if err != nil || res.IsError {
		t.Fatalf("open_page: %v %s", err, bridgetest.Text(res))
	}
	closeTab := func(cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_tab", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := closeTab(other, map[string]any{"tabId": 40}); !res.IsError || closed.Load() != 0 {
		t.Fatalf("the other client of the same name closed the tab the first opened: %s", bridgetest.Text(res))
	}
	var opened struct {
		TabID    int    `json:"tabId"`
		CloseKey string `json:"closeKey"`
	}
	if err := json.Unmarshal([]byte(bridgetest.Text(res)), &opened); err != nil || opened.TabID != 40 || len(opened.CloseKey) < 32 {
		t.Fatalf("open_page answered %s (%v), want tab 40 and a closeKey", bridgetest.Text(res), err)
	}
	for what, args := range map[string]map[string]any{
		"no key":                 {"tabId": 40},
		"a wrong key":            {"tabId": 40, "key": strings.Repeat("0", len(opened.CloseKey))},
		"the key of another tab": {"tabId": 12, "key": opened.CloseKey},
	} {
		if res := closeTab(other, args); !res.IsError || !strings.Contains(bridgetest.Text(res), "closeKey") {
			t.Errorf("the other client's close_tab with %s = %s, want refused, naming closeKey", what, bridgetest.Text(res))
		}
	}
	if n := closed.Load(); n != 0 {
		t.Fatalf("%d refused close_tab requests reached the browser", n)
	}
	if res := closeTab(owner, map[string]any{"tabId": 40, "key": opened.CloseKey}); res.IsError {
		t.Errorf("close_tab with the key open_page answered = %s", bridgetest.Text(res))
	}
	if n := closed.Load(); n != 1 {
		t.Errorf("%d close_tab requests reached the browser, want 1", n)
	}
	if res := closeTab(owner, map[string]any{"tabId": 40, "key": opened.CloseKey}); !res.IsError {
		t.Errorf("a closeKey used twice = %s, want refused", bridgetest.Text(res))
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// echoShim runs a host whose tab 12 offers echo, and a shim Server watching
// it until the test ends (wctx ends then too).
func echoShim(t *testing.T) (*bridgetest.Page, *fakeext.Ext, *shim.Server, context.Context) {
	p := bridgetest.NewPage()
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	srv := shim.New(shim.Options{Dir: dir, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	wctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go srv.Watch(wctx)
	return p, ext, srv, wctx
}
