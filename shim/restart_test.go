package shim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// restartSetup starts a host whose page has echo in tab 12, and a shim
// with the given grace whose log the test can wait on.
func restartSetup(t *testing.T, grace time.Duration) (srv *shim.Server, sc *bridgetest.MCPClient, log *bridgetest.Log, ext *fakeext.Ext, dir string) {
	t.Helper()
	ctx := bridgetest.Context(t)
	dir = bridgetest.RuntimeDir(t)
	ext = bridgetest.StartHost(t, dir, bridgetest.NewPage())
	if err := ext.SetState(restartTabs, restartTools); err != nil {
		t.Fatal(err)
	}
	log = bridgetest.NewLog(t, "webmcp-shim")
	srv = shim.New(shim.Options{Dir: dir, HostGrace: grace, Logger: log.Slog()})
	sc = bridgetest.ServeMCP(t, srv.Serve)
	sc.AwaitTools(ctx, "echo", bridgetest.Has("echo"))
	return srv, sc, log, ext, dir
}

var (
	restartTabs  = []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}
	restartTools = []protocol.Tool{bridgetest.Tool(12, "echo")}
)

// TestHostRestartUnnoticed: the browser's host dies and the same browser
// comes back within the grace: the agent's tool list never changes, and a
// call made meanwhile waits and goes through to the new host.
func TestHostRestartUnnoticed(t *testing.T) {
	ctx := bridgetest.Context(t)
	_, sc, log, ext1, dir := restartSetup(t, time.Hour) // the grace never runs out here
	sc.Drain()
	if err := ext1.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Await(ctx, "disconnected from host"); err != nil {
		t.Fatal(err)
	}
	if tools := sc.Tools(ctx); tools["echo"] == nil {
		t.Fatalf("echo left the list while its host restarts: %v", bridgetest.Names(tools))
	}
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"during": true}})
		if err != nil {
			t.Errorf("echo during the restart: %v", err)
		}
		resc <- res
	}()

	// The same browser (fakeext's instance) comes back with a new host.
	p2 := bridgetest.NewPage()
	ext2 := bridgetest.StartHost(t, dir, p2)
	if err := ext2.SetState(restartTabs, restartTools); err != nil {
		t.Fatal(err)
	}
	if res := bridgetest.Await(ctx, t, resc, "the call made during the restart"); res == nil || res.IsError || len(p2.Calls()) != 1 {
		t.Fatalf("echo during the restart = %q; the new host's page saw %d calls", bridgetest.Text(res), len(p2.Calls()))
	}
	// No list_changed for the restart: the shim changed no tool of the
	// agent's list after the kill (it logs each change as it makes it).
	after := log.Text()[strings.LastIndex(log.Text(), "disconnected from host"):]
	if strings.Contains(after, "tool list changed") {
		t.Errorf("the agent's tool list changed for a restart that came back:\n%s", after)
	}
}

// TestBrowserDoesNotComeBack: the host dies and no browser comes back
// within the grace: a call made meanwhile says so (the page did not run
// it), and the tools go with a list_changed. The grace ends when the test
// says (EndGraces), once the call waits for the browser: no race with a
// timer.
func TestBrowserDoesNotComeBack(t *testing.T) {
	ctx := bridgetest.Context(t)
	srv, sc, log, ext, _ := restartSetup(t, time.Hour) // ended by EndGraces below
	sc.Drain()
	if err := ext.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Await(ctx, "disconnected from host"); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		done <- outcome{res, err}
	}()
	if _, err := log.Await(ctx, "a call waits for its browser to come back"); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		t.Fatalf("echo ended within the grace, before the browser could come back: %q, %v", bridgetest.Text(o.res), o.err)
	default:
	}
	srv.EndGraces()
	o := bridgetest.Await(ctx, t, done, "echo once the grace ended")
	if o.err != nil {
		t.Fatalf("echo after the host died: %v (want a result, not a protocol error)", o.err)
	}
	if txt := bridgetest.Text(o.res); !o.res.IsError || !strings.Contains(txt, "did not come back") || !strings.Contains(txt, "did not run") {
		t.Errorf("echo after the host died = %q", txt)
	}
	sc.AwaitChange(ctx, "echo goes after the grace", bridgetest.Lacks("echo"))
}
