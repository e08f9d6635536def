package shim_test

import (
	"slices"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// TestCopiedProfile: two browsers whose profiles are copies of one (a
// user-data-dir copied with the extension's storage, as automation does
// from a template) say the same instance id, and have tabs of the same ids.
// They are two browsers all the same: each tool of each is the agent's,
// under a name of its own, and a call to each runs in its own browser. The
// first one's host restarts: its tools keep their names, the other's too.
func TestCopiedProfile(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p1, p2 := bridgetest.NewPage(), bridgetest.NewPage()
	tabs := []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}
	tools := []protocol.Tool{bridgetest.Tool(12, "echo")}
	ext1 := startBrowser(t, dir, "copied", p1)
	if err := ext1.SetState(tabs, tools); err != nil {
		t.Fatal(err)
	}
	log := bridgetest.NewLog(t, "webmcp-shim")
	sc := bridgetest.ServeMCP(t, shim.New(shim.Options{Dir: dir, HostGrace: time.Hour, Logger: log.Slog()}).Serve) // the grace never runs out here
	sc.AwaitTools(ctx, "the first browser's echo", bridgetest.Has("echo"))
	ext2 := startBrowser(t, dir, "copied", p2)
	if err := ext2.SetState(tabs, tools); err != nil {
		t.Fatal(err)
	}
	listed := sc.AwaitTools(ctx, "the second browser's echo", bridgetest.Has("echo", "echo_2"))

	calls := func(want1, want2 int, what string) {
		t.Helper()
		if n1, n2 := len(p1.Calls()), len(p2.Calls()); n1 != want1 || n2 != want2 {
			t.Errorf("%s: the first browser ran %d calls and the second %d, want %d and %d", what, n1, n2, want1, want2)
		}
	}
	for i, name := range []string{"echo", "echo_2", "echo"} {
		if res := sc.Call(ctx, name, nil); res.IsError {
			t.Fatalf("%s: %s", name, bridgetest.Text(res))
		}
		want1, want2 := 1, 0
		if i > 0 {
			want1, want2 = 1, 1
		}
		if i > 1 {
			want1 = 2
		}
		calls(want1, want2, "after "+name)
	}

	// The first browser's host restarts: the same browser, the same names.
	sc.Drain()
	if err := ext1.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Await(ctx, "disconnected from host"); err != nil {
		t.Fatal(err)
	}
	p3 := bridgetest.NewPage()
	ext3 := startBrowser(t, dir, "copied", p3)
	if err := ext3.SetState(tabs, tools); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext3.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	for name, p := range map[string]*bridgetest.Page{"echo": p3, "echo_2": p2} {
		before := len(p.Calls())
		if res := sc.Call(ctx, name, nil); res.IsError || len(p.Calls()) != before+1 {
			t.Errorf("after the first browser's host restarted, %s = %s and did not run in its browser", name, bridgetest.Text(res))
		}
	}
	if got, want := bridgetest.Names(sc.Tools(ctx)), bridgetest.Names(listed); !slices.Equal(got, want) {
		t.Errorf("after the first browser's host restarted the tools are %v, want them as before: %v", got, want)
	}
}
