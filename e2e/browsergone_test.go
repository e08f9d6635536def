package e2e

// What an agent sees when the browser goes for good (issue TRUST item 16)
// and when a tab closes under a call (item 17), with a real Chromium, the
// real extension, host and shim; the unit-level promises are in
// shim/restart_test.go and shim/call.go.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// TestBrowserNeverComesBack: Chromium closes for real (its extension and
// host go with it) and does not come back. Within the grace (shim.HostGrace)
// the agent's tools stay listed, with no tools/list_changed, and a call made
// meanwhile waits; when the grace ends the call says that the browser went
// away and did not come back (and that the page did not run it), the page
// tools leave tools/list, and the agent hears exactly one
// tools/list_changed for it: a later change that the test makes (another
// browser's tool) is the next one.
func TestBrowserNeverComesBack(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		_, _, names := b.openAllTools("")
		slices.Sort(names)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
		defer cancel()
		// The agent's shim, verbose: the test waits on what it logs.
		a := b.connectAgent("--verbose")
		a.awaitTools(ctx, "the demo's tools", func(m map[string]*mcp.Tool) bool { return slices.Equal(demoTools(m), names) })
		a.settle(ctx)
		changes := a.changes()

		mark := a.log.mark()
		closing := time.Now()
		closeBrowser(t, b)
		if err := a.log.await(ctx, mark, "disconnected from host"); err != nil {
			t.Fatalf("the agent's shim never saw the browser's host go: %v", err)
		}
		// The grace runs: the tools stay listed, unchanged.
		if got := demoTools(a.list(ctx)); !slices.Equal(got, names) {
			t.Errorf("right after the browser closed the agent lists %v of the demo's tools, want %v", got, names)
		}
		type outcome struct {
			res *mcp.CallToolResult
			err error
			at  time.Time
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "after the browser went"}})
			done <- outcome{res, err, time.Now()}
		}()
		waits := make(chan error, 1)
		go func() { waits <- a.log.await(ctx, mark, "a call waits for its browser to come back") }()
		select {
		case err := <-waits:
			if err != nil {
				t.Fatalf("echo, called after the browser went: %v", err)
			}
		case o := <-done:
			t.Fatalf("echo ended at once, within the grace, before the browser could come back: %q, %v", textOf(o.res), o.err)
		}
		select {
		case o := <-done:
			t.Fatalf("echo ended within the grace, before the browser could come back: %q, %v", textOf(o.res), o.err)
		default:
		}
		if n := a.changes(); n != changes {
			t.Errorf("%d tools/list_changed within the grace", n-changes)
		}

		// The first list_changed after the close is the grace's end: the
		// page tools are gone from the list it announces.
		if err := a.awaitChanges(ctx, changes+1); err != nil {
			t.Fatalf("no tools/list_changed when the grace ended: %v", err)
		}
		if got := demoTools(a.list(ctx)); len(got) > 0 {
			t.Errorf("a tools/list_changed came while the browser's tools were still listed (within the grace): %v", got)
		}
		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			t.Fatalf("echo, called after the browser went, never ended")
		}
		// The grace counts from when the shim saw the host go, after the
		// test began to close the browser: sooner would be within it.
		if d := o.at.Sub(closing); d < shim.HostGrace {
			t.Errorf("echo ended %s after the browser began to close, within the grace (%s)", d.Round(time.Millisecond), shim.HostGrace)
		}
		if o.err != nil {
			t.Fatalf("echo after the browser went: %v (want a result, not a protocol error)", o.err)
		}
		want := "tool echo is not available: its browser went away and did not come back (the page did not run this call)"
		if got := textOf(o.res); !o.res.IsError || !strings.Contains(got, want) || o.res.Meta["dev.webmcp/pageRan"] != "no" {
			t.Errorf("echo after the browser went = %q (isError %v, _meta %v), want an error that says %q", got, o.res.IsError, o.res.Meta, want)
		}

		// Exactly one: another browser (a fake extension's host) brings a
		// tool, and its list_changed is the next one the agent hears.
		startOtherBrowser(t, b, "marker")
		a.awaitTools(ctx, "the other browser's tool", func(m map[string]*mcp.Tool) bool { return m["marker"] != nil })
		if err := a.awaitChanges(ctx, changes+2); err != nil {
			t.Fatalf("no tools/list_changed for the other browser's tool: %v", err)
		}
		if n := a.changes() - changes; n != 2 {
			t.Errorf("the agent heard %d tools/list_changed for the browser's going and the other browser's tool, want 2 (one each)", n)
		}
	})
}

// TestTabClosedWhileCallRuns: the agent calls a page tool that never
// answers (slow_task for ten minutes) and the tab closes while the call
// runs. The agent is told at once, not at the call's --timeout: the tab
// closed while the call ran and the page may have run it. The tool leaves
// the list, and the shim and the other tab's tools keep working.
func TestTabClosedWhileCallRuns(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		running, closeRunning, names := b.openAllTools("")
		// The second tab's tools take the names the first one leaves free.
		b.openAllTools("_2")

		// A hang guard, well below the call's --timeout (60 s): the answer
		// must come from the tab's closing, not from the timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		type outcome struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"ms": 600000}})
			done <- outcome{res, err}
		}()
		waitPage(t, running, `document.querySelector("#status").textContent.includes("slow_task running")`)
		closed := time.Now()
		closeRunning()
		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			t.Fatalf("slow_task never ended after its tab closed (waited %s)", time.Since(closed).Round(time.Millisecond))
		}
		if o.err != nil {
			t.Fatalf("slow_task as its tab closed: %v (want a result, not a protocol error)", o.err)
		}
		t.Logf("slow_task ended %s after its tab closed: %q", time.Since(closed).Round(time.Millisecond), textOf(o.res))
		got := textOf(o.res)
		for _, want := range []string{"tool slow_task: its tab closed while the call ran", "The page may have run this call"} {
			if !strings.Contains(got, want) {
				t.Errorf("slow_task as its tab closed = %q, want it to say %q", got, want)
			}
		}
		if !o.res.IsError || o.res.Meta["dev.webmcp/pageRan"] != "maybe" || o.res.Meta["dev.webmcp/error"] != "tab_closed" {
			t.Errorf("slow_task as its tab closed: isError %v, _meta %v; want an error tab_closed, pageRan maybe", o.res.IsError, o.res.Meta)
		}

		b.waitTools("the closed tab's tools to go", func(m map[string]*mcp.Tool) bool {
			for _, name := range names {
				if m[name] != nil || m[name+"_2"] == nil {
					return false
				}
			}
			return true
		})
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second) // a hang guard only
		defer cancel()
		res := b.call(ctx, "echo_2", map[string]any{"text": "still here"})
		if res.IsError || text(res) != "still here" {
			t.Errorf("the other tab's echo after the close = %q (isError %v)", text(res), res.IsError)
		}
	})
}

// openAllTools opens the demo app in a new tab and waits until every one
// of its tools is listed, each under its page name followed by suffix
// ("_2" in a second tab): a page reports its tools a few at a time. It
// returns the tab, the function that closes it, and the tools' page names.
func (b *bridge) openAllTools(suffix string) (tab context.Context, close func(), names []string) {
	b.t.Helper()
	tab, close = b.open(demoURL("localhost", "/"))
	names = eval[[]string](b.t, tab, `window.demo.ready`)
	b.waitTools("the demo's tools", func(m map[string]*mcp.Tool) bool {
		for _, name := range names {
			if m[name+suffix] == nil {
				return false
			}
		}
		return true
	})
	return tab, close, names
}

// closeBrowser closes Chromium as the system does when the user logs out
// (SIGTERM: Chromium shuts down in order), and returns once the
// connection to it dropped as its process ended. The extension's native
// port closes with it, and the host exits. The harness's cleanup copes
// with a browser that is gone.
func closeBrowser(t *testing.T, b *bridge) {
	t.Helper()
	c := chromedp.FromContext(b.browser)
	if err := c.Browser.Process().Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("close Chromium: %v", err)
	}
	select {
	case <-c.Browser.LostConnection:
	case <-time.After(30 * time.Second): // a hang guard only
		t.Fatalf("Chromium did not close")
	}
}

// startOtherBrowser starts a host whose browser is a fake extension with
// one allowed tab that has a tool named tool, in b's runtime directory,
// where the shims find it.
func startOtherBrowser(t *testing.T, b *bridge, tool string) {
	t.Helper()
	p := bridgetest.NewPage()
	ext, err := fakeext.Start(context.Background(), fakeext.Options{
		HostBinary: filepath.Join(installDir, "bin", "webmcp-host"),
		RuntimeDir: b.runtimeDir,
		Stderr:     b.logs.prefixed("other browser's host: "),
		Handler:    p.Serve,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ext.Close() })
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Other browser")}, []protocol.Tool{bridgetest.Tool(12, tool)}); err != nil {
		t.Fatal(err)
	}
}

// demoTools are the MCP names of the demo app's tools among tools (those
// of a page on the demo's origin), sorted.
func demoTools(tools map[string]*mcp.Tool) []string {
	var names []string
	for name, tool := range tools {
		if strings.HasPrefix(tool.Description, fmt.Sprintf("[localhost:%d ", demoPort)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// textOf is the text of a result, "" for none.
func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return text(res)
}

// agent is an MCP client of its own webmcp-shim that counts the
// tools/list_changed notifications it gets and keeps the shim's log.
type agent struct {
	t   testing.TB
	cs  *mcp.ClientSession
	log *awaitLog

	mu      sync.Mutex
	n       int           // tools/list_changed so far
	changed chan struct{} // closed and replaced at each
}

// connectAgent starts webmcp-shim with args, as connectShim does, for an
// agent of the test's own.
func (b *bridge) connectAgent(args ...string) *agent {
	t := b.t
	t.Helper()
	a := &agent{t: t, log: &awaitLog{out: b.logs.prefixed("agent's shim: "), grew: make(chan struct{})}, changed: make(chan struct{})}
	cmd := exec.Command(filepath.Join(installDir, "bin", "webmcp-shim"), args...)
	cmd.Env = append(os.Environ(), "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "XDG_CACHE_HOME="+filepath.Join(filepath.Dir(b.runtimeDir), "cache"))
	cmd.Stderr = a.log
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.n++
			close(a.changed)
			a.changed = make(chan struct{})
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to webmcp-shim: %v", err)
	}
	b.shims = append(b.shims, cmd)
	t.Cleanup(func() { cs.Close() })
	a.cs = cs
	return a
}

// settle waits until the agent has had the tools/list_changed that its
// shim owes it for the tools of the host's first state, so that counting
// starts from a quiet list. The shim adds them all at once (it logs "the
// agent's tool list changed"); the MCP SDK tells the session 10 ms later,
// if the session existed then (the SDK logs "server session connected"
// once it does). Call it once the agent lists the page's tools, the page
// settled.
func (a *agent) settle(ctx context.Context) {
	a.t.Helper()
	const changed = "the agent's tool list changed"
	if err := a.log.await(ctx, 0, changed); err != nil {
		a.t.Fatal(err)
	}
	log := a.log.String()
	if n := strings.Count(log, changed); n != 1 {
		a.t.Fatalf("the agent's tool list changed %d times as its shim started; want once, for the settled page's tools", n)
	}
	if i := strings.Index(log, "server session connected"); i >= 0 && i < strings.Index(log, changed) {
		if err := a.awaitChanges(ctx, 1); err != nil {
			a.t.Fatalf("the tools/list_changed for the agent's first tools: %v", err)
		}
	}
}

// changes is how many tools/list_changed the agent has had.
func (a *agent) changes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// awaitChanges waits until the agent has had n tools/list_changed.
func (a *agent) awaitChanges(ctx context.Context, n int) error {
	for {
		a.mu.Lock()
		got, next := a.n, a.changed
		a.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-next:
		case <-ctx.Done():
			return fmt.Errorf("%d tools/list_changed of %d: %w", got, n, ctx.Err())
		}
	}
}

// list is the agent's tools/list.
func (a *agent) list(ctx context.Context) map[string]*mcp.Tool {
	a.t.Helper()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		a.t.Fatalf("list tools: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// awaitTools lists the agent's tools until ok accepts them, waking on its
// tools/list_changed.
func (a *agent) awaitTools(ctx context.Context, what string, ok func(map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	a.t.Helper()
	for {
		a.mu.Lock()
		next := a.changed
		a.mu.Unlock()
		tools := a.list(ctx)
		if ok(tools) {
			return tools
		}
		select {
		case <-next:
		case <-ctx.Done():
			a.t.Fatalf("waiting for %s: %v; the agent lists %v after %d tools/list_changed", what, ctx.Err(), sortedKeys(tools), a.changes())
		}
	}
}

// awaitLog is a process's log that a test can wait on; it copies what it
// gets to out.
type awaitLog struct {
	out  io.Writer
	mu   sync.Mutex
	text strings.Builder
	grew chan struct{} // closed and replaced at each write
}

func (l *awaitLog) Write(p []byte) (int, error) {
	l.out.Write(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.Write(p)
	close(l.grew)
	l.grew = make(chan struct{})
	return len(p), nil
}

// String is the log so far.
func (l *awaitLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// mark is where the log is now, for await.
func (l *awaitLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.Len()
}

// await waits until the log after mark has a line with sub.
func (l *awaitLog) await(ctx context.Context, mark int, sub string) error {
	for {
		l.mu.Lock()
		found, grew := strings.Contains(l.text.String()[mark:], sub), l.grew
		l.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return fmt.Errorf("no %q in the log: %w", sub, ctx.Err())
		}
	}
}
