package e2e

// The bridge in real Firefox (issue 25): Firefox ESR headless with its
// WebDriver BiDi remote agent, the installed Firefox add-on
// (share/webmcp-bridge/firefox-extension) loaded as a temporary add-on
// through webExtension.install, Firefox's native-messaging manifest in a
// HOME of the test's own, and webmcp-shim driven by an MCP client. Without
// Firefox (WEBMCP_FIREFOX, or firefox-esr or firefox on PATH) the tests
// skip, except in CI (CI set), where they fail: .ci/run installs
// firefox-esr.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bidi"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

func findFirefox() string {
	if p := os.Getenv("WEBMCP_FIREFOX"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// firefoxBridge is Firefox with the add-on, its host and a shim.
type firefoxBridge struct {
	*bridge
	bidi    *bidi.Client
	context string // the first tab's browsing context
	chrome  string // the browser window's chrome context (chromeContext)
	profile string // Firefox's profile folder
}

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// firefoxExtUUID is the add-on's internal UUID in the test profile
// (extensions.webextensions.uuids), so that its pages have a known
// moz-extension:// origin.
const firefoxExtUUID = "3c5d9a1e-4b7f-4e0a-9f6d-2b8e1c7a5d40"

// ffExtURL is a page of the add-on in the test's Firefox.
func ffExtURL(path string) string {
	return "moz-extension://" + firefoxExtUUID + "/" + path
}

// startFirefox starts Firefox headless with a fresh profile, the
// add-on installed, and a webmcp-shim connected through an MCP client.
// prefs are set in the profile (user.js) before Firefox starts.
func startFirefox(t *testing.T, prefs ...string) *firefoxBridge {
	t.Helper()
	if chromiumPath == "" {
		t.Skip("the e2e setup (install.sh) runs only where Chromium is")
	}
	ff := findFirefox()
	if ff == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Firefox on this machine, and CI is set: apt-get install firefox-esr (as .ci/run does), or set WEBMCP_FIREFOX")
		}
		t.Skip("no Firefox on this machine (set WEBMCP_FIREFOX, or apt-get install firefox-esr)")
	}
	b := &bridge{t: t, changed: make(chan struct{}, 1), updated: make(chan string, 16), logs: &logBuffer{}}
	t.Cleanup(func() {
		if t.Failed() || *verbose {
			t.Logf("logs:\n%s", b.logs.String())
		}
	})
	rd, err := os.MkdirTemp("", "wmrt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rd) })
	b.runtimeDir = filepath.Join(rd, "run")

	// Firefox reads the manifest from ~/.mozilla/native-messaging-hosts.
	home := t.TempDir()
	m, err := manifest.NewFirefox(filepath.Join(installDir, "bin", "webmcp-host"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Write(m, filepath.Join(home, ".mozilla", "native-messaging-hosts")); err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	userJS := fmt.Sprintf("user_pref(\"extensions.webextensions.uuids\", %q);\n", fmt.Sprintf(`{%q: %q}`, protocol.FirefoxAddonID, firefoxExtUUID))
	for _, p := range prefs {
		userJS += "user_pref(" + p + ");\n"
	}
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(userJS), 0o644); err != nil {
		t.Fatal(err)
	}
	log := bridgetest.NewLog(t, "firefox")
	// The extension's pages are no browsing contexts for BiDi (Firefox
	// leaves them out, bug 1755014): the tests reach them from the browser's
	// own chrome, which --remote-allow-system-access opens to script.evaluate,
	// through a window actor of theirs (firefox_ext_test.go).
	if err := writeExtPageActor(profile); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(ff, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0", "--remote-allow-system-access")
	cmd.Env = append(os.Environ(), "HOME="+home, "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "MOZ_CRASHREPORTER_DISABLE=1")
	logs := b.logs.prefixed("firefox: ")
	cmd.Stdout = logs
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { log.Write(p); return logs.Write(p) })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	line, err := log.Await(ctx, "WebDriver BiDi listening on ")
	if err != nil {
		t.Fatalf("Firefox's remote agent: %v", err)
	}
	mt := bidiListening.FindStringSubmatch(line)
	if mt == nil {
		t.Fatalf("Firefox's remote agent: no address in %q", line)
	}
	c, err := bidi.Dial(ctx, strings.TrimSuffix(mt[1], "/")+"/session")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Command(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	addon := filepath.Join(installDir, "share", "webmcp-bridge", "firefox-extension")
	if _, err := c.Command(ctx, "webExtension.install", map[string]any{"extensionData": map[string]any{"type": "path", "path": addon}}); err != nil {
		t.Fatalf("install the add-on: %v", err)
	}
	// The add-on registers its content scripts for the allowed sites, then
	// starts its host: a page loaded once the host is up has them (a
	// temporary add-on starts anew with each Firefox).
	if err := awaitHostSocket(ctx, b.runtimeDir); err != nil {
		t.Fatalf("the add-on started no host: %v", err)
	}
	raw, err := c.Command(ctx, "browsingContext.getTree", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil || len(tree.Contexts) == 0 {
		t.Fatalf("browsingContext.getTree = %s, %v", raw, err)
	}
	b.client = b.connectShim()
	return &firefoxBridge{bridge: b, bidi: c, context: tree.Contexts[0].Context, profile: profile}
}

// awaitHostSocket waits until a host's socket is in dir, one whose path
// is not among except (another browser's host). There is no event to wait
// for: the shim finds hosts the same way, by looking in the directory now
// and then (shim/hostlink).
func awaitHostSocket(ctx context.Context, dir string, except ...string) error {
	for {
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "host-") && strings.HasSuffix(e.Name(), ".sock") && !slices.Contains(except, filepath.Join(dir, e.Name())) {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no host socket in %s: %w", dir, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// navigate loads url in the first tab.
func (f *firefoxBridge) navigate(url string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.bidi.Command(ctx, "browsingContext.navigate", map[string]any{"context": f.context, "url": url, "wait": "complete"}); err != nil {
		f.t.Fatalf("navigate to %s: %v", url, err)
	}
}

// In Firefox the add-on starts the registered host, the demo page's tools
// reach the agent and a call runs in the page; get_ui_context reads the
// page; a navigation takes the tools away.
func TestFirefoxToolsAndCall(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("127.0.0.1", "/"))
	f.waitTool("echo")
	ctx := bridgetest.Context(t)
	res := f.call(ctx, "echo", map[string]any{"text": "hello from Firefox"})
	if res.IsError || text(res) != "hello from Firefox" {
		t.Errorf("echo = %q (error %v)", text(res), res.IsError)
	}
	res = f.call(ctx, "get_ui_context", map[string]any{})
	if res.IsError || !strings.Contains(text(res), "trace.Timeline#viewport") {
		t.Errorf("get_ui_context = %q (error %v)", text(res), res.IsError)
	}
	out, err := f.shimCLI("status")
	if err != nil || !strings.Contains(out, "Firefox ") {
		t.Errorf("webmcp-shim status = %v:\n%s", err, out)
	}
	t.Logf("webmcp-shim status:\n%s", out)
	out, err = f.shimCLI("call", "echo", `{"text": "hello from webmcp-shim call"}`)
	if err != nil || !strings.Contains(out, "hello from webmcp-shim call") {
		t.Errorf("webmcp-shim call echo = %v:\n%s", err, out)
	}
	t.Logf("webmcp-shim call echo '{\"text\": \"hello from webmcp-shim call\"}':\n%s", out)
	f.navigate(demoURL("127.0.0.1", "/nothing-here"))
	f.waitTools("the demo's tools gone", func(m map[string]*mcp.Tool) bool { return m["echo"] == nil })
}

// waitPage waits in the first tab until the JavaScript boolean expression
// cond is true (see waitScript).
func (f *firefoxBridge) waitPage(cond string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "script.evaluate", map[string]any{
		"expression": waitScript(cond), "target": map[string]any{"context": f.context}, "awaitPromise": true,
	})
	var res struct {
		Type   string `json:"type"`
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil || res.Type != "success" || res.Result.Value != true {
		f.t.Fatalf("waiting in the page for %s: %s, %v", cond, raw, err)
	}
}

// In Firefox, cancelling a slow call reaches the page's AbortSignal.
func TestFirefoxCancel(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", "/"))
	f.waitTool("slow_task")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"ms": 60000}})
		done <- err
	}()
	f.waitPage(`document.querySelector("#status").textContent.includes("slow_task running")`)
	cancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled call returned no error")
	}
	f.waitPage(`window.__lastAbort && window.__lastAbort.tool === "slow_task"`)
	if res := f.call(context.Background(), "get_selection", map[string]any{}); res.IsError {
		t.Errorf("get_selection after a cancel: %s", text(res))
	}
}

// evalIn evaluates the JavaScript expression expr in browsing context bc,
// awaiting a promise, and returns its value as JSON (script.evaluate's
// serialization: a remote value).
func (f *firefoxBridge) evalIn(bc, expr string) json.RawMessage {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "script.evaluate", map[string]any{
		"expression": expr, "target": map[string]any{"context": bc}, "awaitPromise": true,
	})
	var res struct {
		Type      string          `json:"type"`
		Result    json.RawMessage `json:"result"`
		Exception json.RawMessage `json:"exceptionDetails"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil || res.Type != "success" {
		f.t.Fatalf("evaluate %s: %s, %v", expr, raw, err)
	}
	return res.Result
}

// evalString evaluates expr (a string) in bc.
func (f *firefoxBridge) evalString(bc, expr string) string {
	f.t.Helper()
	var v struct {
		Value string `json:"value"`
	}
	raw := f.evalIn(bc, expr)
	if err := json.Unmarshal(raw, &v); err != nil {
		f.t.Fatalf("evaluate %s: not a string: %s", expr, raw)
	}
	return v.Value
}

// newTab opens a tab on url and returns its browsing context.
func (f *firefoxBridge) newTab(url string) string {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "browsingContext.create", map[string]any{"type": "tab"})
	var res struct {
		Context string `json:"context"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil {
		f.t.Fatalf("open a tab: %s, %v", raw, err)
	}
	if _, err := f.bidi.Command(ctx, "browsingContext.navigate", map[string]any{"context": res.Context, "url": url, "wait": "complete"}); err != nil {
		f.t.Fatalf("navigate to %s: %v", url, err)
	}
	return res.Context
}

// clickIn clicks the first element that matches selector in browsing
// context bc with real pointer input (input.performActions at the
// element's centre).
func (f *firefoxBridge) clickIn(bc, selector string) {
	f.t.Helper()
	raw := f.evalIn(bc, fmt.Sprintf(`document.querySelector(%s)`, mustJSON(selector)))
	var node struct {
		Type     string `json:"type"`
		SharedID string `json:"sharedId"`
	}
	if err := json.Unmarshal(raw, &node); err != nil || node.Type != "node" || node.SharedID == "" {
		f.t.Fatalf("no element %s in the page: %s", selector, raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	origin := map[string]any{"type": "element", "element": map[string]any{"sharedId": node.SharedID}}
	if _, err := f.bidi.Command(ctx, "input.performActions", map[string]any{
		"context": bc,
		"actions": []any{map[string]any{
			"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"},
			"actions": []any{
				map[string]any{"type": "pointerMove", "x": 0, "y": 0, "origin": origin},
				map[string]any{"type": "pointerDown", "button": 0},
				map[string]any{"type": "pointerUp", "button": 0},
			},
		}},
	}); err != nil {
		f.t.Fatalf("click %s: %v", selector, err)
	}
}

// In Firefox, a click in the page reaches get_ui_context: the demo's
// selection provider names the clicked slice (the Chromium suite's
// TestContextAfterClick), and a text selection comes as ambient context.
func TestFirefoxContextAfterClick(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", "/"))
	f.waitPage(`window.demo && window.demo.ready !== undefined`)
	f.waitTool("select_slice")
	f.clickIn(f.context, `.slice[data-id="3"]`)
	c := f.getUIContext()
	if c.Tab == nil || !strings.Contains(c.Tab.URL, "localhost") {
		t.Errorf("get_ui_context tab = %+v, want the demo tab", c.Tab)
	}
	summary, data, ok := c.provider(selectionProvider)
	if !ok || !strings.Contains(summary, "CommitNavigation") || !strings.Contains(data, `"id":3`) {
		t.Errorf("selection provider = %q %s (present %v); want slice 3 CommitNavigation", summary, data, ok)
	}
	f.evalIn(f.context, `(() => { const s = getSelection(); s.removeAllRanges(); const r = document.createRange(); r.selectNodeContents(document.querySelector("#details")); s.addRange(r); })()`)
	c = f.getUIContext()
	if c.Ambient == nil || !strings.Contains(c.Ambient.Selection, "CommitNavigation") {
		t.Errorf("ambient selection = %+v; want the selected details text", c.Ambient)
	}
}

// firefoxOwnPage registers one tool, ff_sum, through Firefox's own
// navigator.modelContext (its WebMCP prototype), and says in
// document.body.dataset.held what Firefox's getTools() (synchronous) holds.
const firefoxOwnPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Firefox's own WebMCP</title></head>
<body><h1>Firefox's own WebMCP</h1>
<script>
navigator.modelContext.registerTool({
  name: "ff_sum", description: "Adds a and b.",
  inputSchema: {type: "object", properties: {a: {type: "number"}, b: {type: "number"}}, required: ["a", "b"]},
  annotations: {readOnlyHint: true},
  execute: async ({a, b}) => "sum " + (a + b),
});
document.body.dataset.held = navigator.modelContext.getTools().map((t) => t.name).join(",");
</script></body></html>`

// Firefox's own WebMCP prototype, where its preferences turn it on
// (dom.modelcontext.enabled, and dom.modelcontext.testing.enabled for
// getTools and invokeTool): a tool the page registers through
// navigator.modelContext reaches the agent beside the polyfill's, and a
// call runs it.
func TestFirefoxOwnWebMCP(t *testing.T) {
	f := startFirefox(t, `"dom.modelcontext.enabled", true`, `"dom.modelcontext.testing.enabled", true`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, firefoxOwnPage)
	}))
	t.Cleanup(srv.Close)
	f.navigate(srv.URL + "/")
	f.waitPage(`document.body.dataset.held === "ff_sum"`)
	if got := f.evalString(f.context, `String(Object.getOwnPropertyDescriptor(Navigator.prototype, "modelContext")?.get)`); !strings.Contains(got, "[native code]") {
		t.Fatalf("navigator.modelContext is not Firefox's own: its getter is %s", got)
	}
	f.waitTool("ff_sum")
	res := f.call(bridgetest.Context(t), "ff_sum", map[string]any{"a": 2, "b": 3})
	if res.IsError || text(res) != "sum 5" {
		t.Errorf("ff_sum = %q (error %v)", text(res), res.IsError)
	}
	// With Firefox's prototype on (and its ModelContext interface on the
	// window), the polyfill still serves document.modelContext: the demo
	// works as without it.
	f.navigate(demoURL("127.0.0.1", "/"))
	f.waitTool("echo")
	if res := f.call(bridgetest.Context(t), "echo", map[string]any{"text": "beside Firefox's own"}); res.IsError || text(res) != "beside Firefox's own" {
		t.Errorf("echo = %q (error %v)", text(res), res.IsError)
	}
}

// In Firefox the polyfill's declarative tools (the demo's orders page, as
// the Chromium suite's TestWebMCP2026 tests use it): a toolautosubmit form
// is filled and submitted, and the page's respondWith value is the answer;
// a submission that navigates answers with where it led.
func TestFirefoxForms(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", ordersPath))
	f.waitPage(`window.orders && window.orders.mode === "polyfill"`)
	f.waitTool("add_note")
	ctx := bridgetest.Context(t)
	res := f.call(ctx, "add_note", addNoteArgs)
	var got addNoteResult
	if res.IsError || json.Unmarshal([]byte(text(res)), &got) != nil || !got.ringsBack() {
		t.Errorf("add_note = %q (error %v), want order 7's note as the page answered it", text(res), res.IsError)
	}
	if sub := f.evalString(f.context, `JSON.stringify(window.orders.submits)`); sub != `[{"form":"add_note","agentInvoked":true}]` {
		t.Errorf("submit events seen by the page = %s, want one add_note with agentInvoked", sub)
	}
	res = f.call(ctx, "search_orders", map[string]any{"q": "tea"})
	want := "[]\nTool search_orders ran and navigated its tab to " + demoURL("localhost", ordersPath+"?q=tea")
	if res.IsError || !strings.HasPrefix(text(res), want) {
		t.Errorf("search_orders = %q (error %v), want a result that begins %q", text(res), res.IsError, want)
	}
}

// In Firefox an agent opens a page, moves between tabs and closes the tab
// it opened (the Chromium suite's TestOpenPage): open_page answers with the
// new tab's tools, focus_tab changes the tab get_ui_context describes,
// close_tab closes only the agent's tab.
func TestFirefoxOpenPage(t *testing.T) {
	f := startFirefox(t)
	ctx := bridgetest.Context(t)
	f.navigate(demoURL("localhost", "/?mine"))
	f.waitTool("select_slice")
	res := f.call(ctx, "open_page", map[string]any{"url": demoURL("localhost", "/?opened")})
	var op openedPage
	if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil {
		t.Fatalf("open_page = %s", text(res))
	}
	if op.TabID <= 0 || !strings.Contains(op.URL, "?opened") || !contains(op.Tools, "select_slice_2") {
		t.Fatalf("open_page = %+v, want the new tab with the demo's tools", op)
	}
	if res := f.call(ctx, "get_selection_2", map[string]any{}); res.IsError {
		t.Errorf("a tool of the opened page: %s", text(res))
	}
	ids := f.tabIDs("?mine")
	if len(ids) != 1 {
		t.Fatalf("list_tabs has %v for the user's tab", ids)
	}
	user := ids[0]
	for _, id := range []int{user, op.TabID} {
		if res := f.call(ctx, "focus_tab", map[string]any{"tabId": id}); res.IsError {
			t.Fatalf("focus_tab %d: %s", id, text(res))
		}
		if c := f.getUIContext(); c.Tab == nil || c.Tab.ID != id {
			t.Errorf("after focus_tab %d get_ui_context describes %+v", id, c.Tab)
		}
	}
	if res := f.call(ctx, "close_tab", map[string]any{"tabId": user}); !res.IsError || !strings.Contains(text(res), "only the user closes it") {
		t.Errorf("close_tab of the user's tab = %s", text(res))
	}
	if res := f.call(ctx, "close_tab", map[string]any{"tabId": op.TabID}); res.IsError {
		t.Fatalf("close_tab of the opened tab: %s", text(res))
	}
	f.waitTools("the opened tab's tools go", func(m map[string]*mcp.Tool) bool { return m["select_slice_2"] == nil })
}

// In Firefox too (issue FID): a page of a site not allowed gets no script
// of the add-on (no document.modelContext, no message, no DOM of its own),
// the same page on an allowed site gets the polyfill, and the allowed
// sites are the add-on's host permissions, which a content script cannot
// change (Firefox has no storage.local.setAccessLevel: an allow list in
// storage.local would be writable by content scripts, issue SEC item 3).
func TestFirefoxNotAllowedSiteGetsNoScript(t *testing.T) {
	f := startFirefox(t)
	notAllowed := serveObserved(t, "127.0.0.3")
	allowed := serveObserved(t, "127.0.0.1")
	view := `(` + observeScript + `).then((o) => JSON.stringify({modelContext: o.hasModelContext, messages: o.messages, root: o.root, head: o.head, body: o.body}))`
	f.navigate(notAllowed + "/")
	if got, want := f.evalString(f.context, view), `{"modelContext":false,"messages":[],"root":["HEAD[]","BODY[]"],"head":["SCRIPT[]"],"body":["P[]","IFRAME[src]"]}`; got != want {
		t.Errorf("a page of a site not allowed observes %s, want %s", got, want)
	}
	f.navigate(allowed + "/")
	if got := f.evalString(f.context, view); !strings.Contains(got, `"modelContext":true`) {
		t.Errorf("a page of an allowed site observes %s, want the polyfill", got)
	}
	f.openExtPage("ui/options.html")
	var grants string
	json.Unmarshal([]byte(f.extEval("ui/options.html", `browser.permissions.getAll().then((p) => p.origins.sort().join(" "))`)), &grants)
	if grants != "http://127.0.0.1/* http://[::1]/* http://localhost/* https://127.0.0.1/* https://[::1]/* https://localhost/*" {
		t.Errorf("the add-on's host permissions (the allowed sites) = %q, want the loopback defaults", grants)
	}
}
