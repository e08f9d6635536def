package e2e

// What an agent sees when the browser goes for good (issue TRUST item 16)
// and when a tab closes under a call (item 17), with a real Chromium, the
// real extension, host and shim; the unit-level promises are in
// shim/restart_test.go and shim/call.go.

import (
	"context"
	"fmt"
	"net/http"
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

// TestBrowserNeverComesBack: Chromium closes for real (SIGTERM: its
// extension and host go with it) and does not come back, under an agent
// (over the shim's HTTP transport: see httpAgent). Within the grace
// (shim.HostGrace) the agent's tools stay listed, with no
// tools/list_changed, and a call made meanwhile waits; when the grace ends
// the call says that the browser went away and did not come back (and
// that the page did not run it), no sooner, and the agent hears exactly one
// tools/list_changed, which announces the list without the browser's
// tools: the next one it hears is for another browser's tool that the
// test brings.
func TestBrowserNeverComesBack(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		_, _, names := b.openAllTools("")
		slices.Sort(names)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
		defer cancel()
		// The agent's shim takes in the browser's tools before the agent
		// connects: every tools/list_changed the agent hears is news.
		a := b.httpAgent(ctx, names)
		if n := a.changes(); n != 0 {
			t.Fatalf("the agent heard %d tools/list_changed before anything changed", n)
		}

		mark := a.logs.mark()
		closing := time.Now()
		closeBrowser(t, b)
		if _, err := a.logs.await(ctx, mark, agentLog, "disconnected from host"); err != nil {
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
		go func() {
			_, err := a.logs.await(ctx, mark, agentLog, "a call waits for its browser to come back")
			waits <- err
		}()
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
		if n := a.changes(); n != 0 {
			t.Errorf("%d tools/list_changed within the grace", n)
		}

		// The first list_changed is the grace's end: it announces the list
		// without the browser's tools, and comes no sooner than the grace.
		if err := a.awaitChanges(ctx, 1); err != nil {
			t.Fatalf("no tools/list_changed when the grace ended: %v", err)
		}
		if d := a.changedAt(1).Sub(closing); d < shim.HostGrace {
			t.Errorf("the first tools/list_changed came %s after the browser began to close, within the grace (%s)", d.Round(time.Millisecond), shim.HostGrace)
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
		// tool, and the next list_changed the agent hears is the one that
		// announces it (the notifications come in order).
		startOtherBrowser(t, b, "marker")
		if err := a.awaitChanges(ctx, 2); err != nil {
			t.Fatalf("no tools/list_changed for the other browser's tool: %v", err)
		}
		if got := a.list(ctx); got["marker"] == nil {
			t.Errorf("a second tools/list_changed for the browser's going, before the other browser's tool came: the agent lists %v", sortedKeys(got))
		}
		if n := a.changes(); n != 2 {
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
// tools/list_changed notifications it gets, notes when each came, and
// keeps the shim's log.
type agent struct {
	t    testing.TB
	cs   *mcp.ClientSession
	logs *logBuffer // the bridge's logs, where the agent's shim writes (agentLog)

	mu      sync.Mutex
	at      []time.Time   // when each tools/list_changed came
	changed chan struct{} // closed and replaced at each
}

// httpAgent starts `webmcp-shim --http --verbose` for b's browser, waits
// until the shim has taken in the tools of the browser's state (names,
// the page's, all in one change), and then connects an agent's MCP client
// to it. A shim over stdio has its agent's session from its start, and
// the MCP SDK tells a session of the changes it makes as it takes in a
// browser's tools, 10 ms after each (more than one when they are spread
// out): a count of tools/list_changed could not tell those from later
// ones. Over HTTP the session begins when the agent connects, and the
// SDK owes a session nothing from before it began.
func (b *bridge) httpAgent(ctx context.Context, names []string) *agent {
	t := b.t
	t.Helper()
	a := &agent{t: t, logs: b.logs, changed: make(chan struct{})}
	config := t.TempDir() // the token lives here, not in the user's config
	env := append(os.Environ(), "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "XDG_CONFIG_HOME="+config, "HOME="+config, "XDG_CACHE_HOME="+filepath.Join(config, "cache"))
	bin := filepath.Join(installDir, "bin", "webmcp-shim")
	cmd := exec.Command(bin, "--http", "127.0.0.1:0", "--verbose")
	cmd.Env = env
	cmd.Stderr = b.logs.prefixed(agentLog)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Its address is on the line that says it serves.
	serving, err := b.logs.await(ctx, 0, agentLog, "serving MCP")
	if err != nil {
		t.Fatalf("webmcp-shim --http: %v", err)
	}
	i := strings.Index(serving, "http://127.0.0.1:")
	if i < 0 {
		t.Fatalf("webmcp-shim --http serves at no loopback address: %q", serving)
	}
	url := strings.Fields(serving[i:])[0]
	const took = "the agent's tool list changed"
	if _, err := b.logs.await(ctx, 0, agentLog, took); err != nil {
		t.Fatalf("webmcp-shim --http never took in the browser's tools: %v", err)
	}
	if log := a.shimLog(); strings.Count(log, took) != 1 || !strings.Contains(log, fmt.Sprintf("added=%d ", len(names))) {
		t.Fatalf("webmcp-shim --http took in the browser's %d tools in more than one change:\n%s", len(names), log)
	}
	tok := exec.Command(bin, "token")
	tok.Env = env
	out, err := tok.Output()
	if err != nil {
		t.Fatalf("webmcp-shim token: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.at = append(a.at, time.Now())
			close(a.changed)
			a.changed = make(chan struct{})
		},
	})
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{strings.TrimSpace(string(out))}}}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to webmcp-shim --http: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	a.cs = cs
	if got := demoTools(a.list(ctx)); !slices.Equal(got, names) {
		t.Fatalf("the agent lists %v of the demo's tools, want %v", got, names)
	}
	return a
}

// changes is how many tools/list_changed the agent has had.
func (a *agent) changes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

// changedAt is when the agent's nth tools/list_changed came (from 1).
func (a *agent) changedAt(n int) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at[n-1]
}

// awaitChanges waits until the agent has had n tools/list_changed.
func (a *agent) awaitChanges(ctx context.Context, n int) error {
	for {
		a.mu.Lock()
		got, next := len(a.at), a.changed
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

// agentLog starts each line of the agent's shim in the bridge's logs.
const agentLog = "agent's shim: "

// shimLog is what the agent's shim logged so far.
func (a *agent) shimLog() string {
	var out strings.Builder
	for line := range strings.Lines(a.logs.String()) {
		if strings.HasPrefix(line, agentLog) {
			out.WriteString(line)
		}
	}
	return out.String()
}
