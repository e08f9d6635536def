package e2e

// Helpers of the ask-before-acting and activity tests: a small test site
// whose tools count their runs in the page, the consent window found as a
// CDP target, controls clicked by their accessible names (the browser's
// own accessibility tree), extension pages opened as tabs, and screenshots.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
)

// consentPage registers four tools: act (no hints), peek (read-only),
// commit (consequential) and other (no hints); each counts its runs in
// window.counts, and document.body.dataset.ready says they are registered.
const consentPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Consent test site</title></head>
<body><h1>Consent test site</h1><p>Tools that count their runs.</p>
<script>
window.counts = {act: 0, peek: 0, commit: 0, other: 0};
const mc = document.modelContext || navigator.modelContext;
const reg = (name, annotations) => mc.registerTool({
  name, description: "The consent test's " + name + " tool.",
  inputSchema: {type: "object", properties: {note: {type: "string"}}},
  annotations,
  execute: async () => { window.counts[name]++; return "ran " + name; },
});
Promise.all([reg("act"), reg("peek", {readOnlyHint: true}), reg("commit", {consequentialHint: true}), reg("other")])
  .then(() => { document.body.dataset.ready = "true"; });
</script></body></html>`

// holdPage registers one tool, hold, whose calls run until the test calls
// window.release(). The calls waiting show in the DOM as
// body[data-pending], the number of them, so that a test can wait for one
// (waitScript sees DOM changes, not a variable's).
const holdPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Trace viewer</title>
<style>body { font: 15px system-ui, sans-serif; margin: 24px; background: #fff; color: #202124; } .slice { background: #e8f0fe; padding: 8px; border-radius: 4px; margin: 4px 0; }</style></head>
<body><h1>Trace viewer</h1><div class="slice">CommitNavigation 12.3 ms</div><div class="slice">Layout 4.1 ms</div><div class="slice">Paint 2.0 ms</div>
<script>
window.pending = [];
const shown = () => { document.body.dataset.pending = String(window.pending.length); };
window.release = () => { window.pending.splice(0).forEach((r) => r()); shown(); };
const mc = document.modelContext || navigator.modelContext;
mc.registerTool({
  name: "hold", description: "Runs until the test releases it.", inputSchema: {type: "object"},
  execute: () => new Promise((r) => { window.pending.push(r); shown(); }).then(() => "released"),
}).then(() => { document.body.dataset.ready = "true"; });
</script></body></html>`

// serveConsentSite serves consentPage at / and holdPage at /hold on
// 127.0.0.1 (a loopback default: allowed, and "never ask" until the user
// says otherwise) and returns its origin.
func serveConsentSite(t testing.TB) string {
	t.Helper()
	return serveLoopback(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/hold" {
			fmt.Fprint(w, holdPage)
			return
		}
		fmt.Fprint(w, consentPage)
	})
}

// serveLoopback serves h on a port of 127.0.0.1 until the test ends and
// returns its origin ("http://127.0.0.1:PORT").
func serveLoopback(t testing.TB, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// extURL is a page of the extension.
func extURL(path string) string {
	return fmt.Sprintf("chrome-extension://%s/%s", protocol.ExtensionID, path)
}

// counts reads the test site's run counts.
func counts(t testing.TB, site context.Context) map[string]int {
	t.Helper()
	return eval[map[string]int](t, site, `window.counts`)
}

// consentTarget waits until a consent window (a page of the extension
// whose URL ends in ui/consent.html) that is not in seen is a target, woken
// by the browser's target events, and returns its id.
func (b *bridge) consentTarget(seen map[target.ID]bool) target.ID {
	b.t.Helper()
	// A hang guard only: under two busy loops a window once took longer
	// than 20 s to open.
	ctx, cancel := context.WithTimeout(b.browser, time.Minute)
	defer cancel()
	var id target.ID
	var parsed error
	err := awaitTargets(ctx, func(infos []*target.Info) bool {
		var ok bool
		if id, ok = consentIn(infos, seen); !ok {
			return false
		}
		ok, parsed = b.consentParsed(ctx, infos)
		return ok || parsed != nil
	})
	if err == nil {
		err = parsed
	}
	if err != nil {
		b.t.Fatalf("no consent window (ui/consent.html) appeared (%v); %s", err, b.consentDiagnosis())
	}
	return id
}

// consentParsed reports whether every consent window among infos has a
// document the parser is done with, waiting for those it is still
// parsing. chromedp must not attach to a page whose top nodes change
// while it attaches: it records them in one goroutine while another reads
// them for each change (a data race in chromedp's DOM bookkeeping), and a
// consent window's parser adds <head> and <body> under <html>. Once parsed,
// the window changes nothing above <body>.
func (b *bridge) consentParsed(ctx context.Context, infos []*target.Info) (bool, error) {
	n := 0
	for _, in := range infos {
		if in.Type == "page" && strings.HasSuffix(in.URL, "/ui/consent.html") {
			n++
		}
	}
	views, err := b.extViews(ctx)
	if err != nil {
		return false, err
	}
	// A window whose document is not there yet is not among the views:
	// its title, parsed after, is a target event that asks again.
	js := fmt.Sprintf(`(async () => {
		const views = chrome.extension.getViews().filter(w => w.location.pathname === "/ui/consent.html");
		if (views.length < %d) return false;
		await Promise.all(views.map(w => w.document.readyState !== "loading" ||
			new Promise(done => w.document.addEventListener("DOMContentLoaded", done, {once: true}))));
		return true;
	})()`, n)
	return chromedp.Run(views, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
}

// extViews is an extension page (opened once per test, attached while
// blank) from which chrome.extension.getViews() sees the extension's own
// windows without attaching to them.
func (b *bridge) extViews(ctx context.Context) (context.Context, error) {
	if b.views != nil {
		return b.views, nil
	}
	page, cancel, err := openExtPage(b.browser, "ui/activity.html")
	b.t.Cleanup(cancel)
	if err != nil {
		return nil, err
	}
	b.views = page
	return page, nil
}

// awaitTargets lists the browser's targets until done accepts them,
// woken by the browser's target events; it fails when ctx ends first or
// the targets cannot be listed.
func awaitTargets(ctx context.Context, done func([]*target.Info) bool) error {
	woke := make(chan struct{}, 1)
	listenTargets(ctx, woke)
	for {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			return fmt.Errorf("list targets: %w", err)
		}
		if done(infos) {
			return nil
		}
		select {
		case <-woke:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// consentDiagnosis tells, for a failure, what the browser and the worker
// hold: the targets, the consent queue, and the activity log (whether the
// call waits, ran without asking, or never reached the worker).
func (b *bridge) consentDiagnosis() string {
	ctx, cancel := context.WithTimeout(b.browser, 20*time.Second)
	defer cancel()
	var out []string
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		out = append(out, fmt.Sprintf("targets: %v", err))
	}
	for _, in := range infos {
		out = append(out, fmt.Sprintf("target %s %s %s", in.TargetID, in.Type, in.URL))
	}
	page, cancelPage, err := openExtPage(ctx, "ui/activity.html")
	defer cancelPage()
	if err != nil {
		return strings.Join(append(out, err.Error()), "\n")
	}
	for _, q := range []string{"consent.list", "activity.list"} {
		js := `chrome.runtime.sendMessage({type: ` + mustJSON(q) + `})`
		got, err := chromedp.Run(page, chromedp.Evaluate[any](js, chromedp.EvalAwaitPromise))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", q, err))
			continue
		}
		j, _ := json.Marshal(got)
		out = append(out, fmt.Sprintf("%s: %s", q, j))
	}
	return "what the browser holds:\n" + strings.Join(out, "\n")
}

// listenTargets wakes woke whenever a target appears, changes or goes.
func listenTargets(ctx context.Context, woke chan struct{}) {
	chromedp.ListenBrowser(ctx, func(ev any) {
		switch ev.(type) {
		case *target.EventTargetCreated, *target.EventTargetInfoChanged, *target.EventTargetDestroyed:
			select {
			case woke <- struct{}{}:
			default:
			}
		}
	})
}

// findConsent reports a consent window not in seen, if there is one now.
func (b *bridge) findConsent(ctx context.Context, seen map[target.ID]bool) (target.ID, bool) {
	b.t.Helper()
	infos, err := chromedp.Targets(ctx)
	if err != nil {
		b.t.Fatalf("list targets: %v", err)
	}
	return consentIn(infos, seen)
}

// consentIn finds a consent window not in seen among infos.
func consentIn(infos []*target.Info, seen map[target.ID]bool) (target.ID, bool) {
	for _, in := range infos {
		if in.Type == "page" && strings.HasSuffix(in.URL, "/ui/consent.html") && !seen[in.TargetID] {
			return in.TargetID, true
		}
	}
	return "", false
}

// attach returns a chromedp context on target id, a consent window that
// consentTarget found parsed; cancelling it detaches (closing the consent
// window would decline its calls).
func (b *bridge) attach(id target.ID) context.Context {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.browser, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	b.t.Cleanup(cancel)
	// The first Run attaches and binds the target's read loop to its context:
	// this long-lived one, not a caller's timeout.
	if err := chromedp.Do(ctx); err != nil {
		b.t.Fatalf("attach to the extension's window %s: %v", id, err)
	}
	return ctx
}

// clickNamed clicks the control of role whose accessible name, as the
// browser computes it, is exactly name.
func clickNamed(t testing.TB, ctx context.Context, role, name string) {
	t.Helper()
	if err := tryClickNamed(ctx, role, name); err != nil {
		t.Fatal(err)
	}
}

// tryClickNamed is clickNamed, returning what went wrong.
func tryClickNamed(ctx context.Context, role, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		return fmt.Errorf("get the document: %w", err)
	}
	res, err := chromedp.Call(ctx, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{
		BackendNodeID: doc.Root.BackendNodeID, AccessibleName: name, Role: role,
	})
	if err != nil {
		return fmt.Errorf("query the accessibility tree for %s %q: %w", role, name, err)
	}
	var node *accessibility.Node
	for _, n := range res.Nodes {
		if !n.Ignored && n.BackendDOMNodeID != 0 {
			node = n
			break
		}
	}
	if node == nil {
		return fmt.Errorf("no %s named %q", role, name)
	}
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.BackendDOMNodeID})
	if err != nil {
		return fmt.Errorf("resolve %s %q: %w", role, name, err)
	}
	// The click runs after this call returns: a click that closes its window
	// (the consent window's last answer) must not lose the call's answer.
	// As the user's: the page gets the user activation a click gives, which
	// the browser requires of chrome.permissions.request ("Allow and add
	// this site").
	gesture := true
	if _, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: `function() { this.focus(); setTimeout(() => this.click(), 0); }`, ObjectID: obj.Object.ObjectID, UserGesture: &gesture,
	}); err != nil {
		return fmt.Errorf("click %s %q: %w", role, name, err)
	}
	return nil
}

// waitInWindow is waitPage for a window that may still be replacing its
// first, empty document with the extension's page (a new popup): an
// evaluation whose document went away is made again in the new one.
func waitInWindow(t testing.TB, ctx context.Context, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	js := waitScript(cond)
	for {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err == nil {
			return
		}
		if ctx.Err() == nil && (strings.Contains(err.Error(), "Execution context was destroyed") || strings.Contains(err.Error(), "Cannot find context")) {
			continue
		}
		t.Fatalf("waiting in the window for %s: %v", cond, err)
	}
}

// buttonReady is a page condition: an enabled button whose text is name,
// armed (the consent window's buttons answer only a moment after a call is
// drawn: data-armed on their group).
func buttonReady(name string) string {
	return fmt.Sprintf(`[...document.querySelectorAll("button")].some(b => b.textContent === %s && !b.disabled && b.closest("[data-armed]")?.dataset.armed !== "false")`, mustJSON(name))
}

// chooseAsk picks the ask-before-acting choice whose words are label in the
// drop-down named "Ask before agents act on this site" of page (the panel,
// or ui/site-settings.html), as a keyboard user would: focus, then the
// option, then the change the browser fires.
func chooseAsk(t testing.TB, page context.Context, label string) {
	t.Helper()
	if role, _ := axControl(t, page, askLabel); role != "combobox" {
		t.Fatalf("%q is a %q, want a combobox (a drop-down)", askLabel, role)
	}
	js := fmt.Sprintf(`(() => {
		const s = %s;
		const o = [...s.options].find(o => o.textContent === %s);
		if (!o) return false;
		s.focus();
		s.value = o.value;
		s.dispatchEvent(new Event("input", {bubbles: true}));
		s.dispatchEvent(new Event("change", {bubbles: true}));
		return true;
	})()`, byLabel(askLabel), mustJSON(label))
	if !eval[bool](t, page, js) {
		t.Fatalf("the drop-down %q has no choice %q", askLabel, label)
	}
}

// callAsync calls a tool through the MCP client cs in the background; the
// result arrives on the channel as "OK <text>", "ISERROR <text>" or
// "ERROR <protocol error>".
func callAsync(cs *mcp.ClientSession, name string, args any) <-chan string {
	ch := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		switch {
		case err != nil:
			ch <- "ERROR " + err.Error()
		case res.IsError:
			ch <- "ISERROR " + text(res)
		default:
			ch <- "OK " + text(res)
		}
	}()
	return ch
}

// outcome waits for a background call's result.
func outcome(t testing.TB, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return")
		return ""
	}
}

// badgeText asks the extension (from one of its pages) for a tab's badge.
func badgeText(t testing.TB, extPage context.Context, tabID int) string {
	t.Helper()
	return eval[string](t, extPage, fmt.Sprintf(`chrome.action.getBadgeText({tabId: %d})`, tabID))
}

// waitBadge waits until a tab's badge says want. Nothing tells a page when
// a badge changes, so the extension page asks again every 50 ms (the
// test's deadline is the hang guard).
func waitBadge(t testing.TB, extPage context.Context, tabID int, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(extPage, 20*time.Second)
	defer cancel()
	js := fmt.Sprintf(`new Promise((resolve) => {
		const check = () => chrome.action.getBadgeText({tabId: %d}).then((t) => t === %s ? resolve(true) : setTimeout(check, 50));
		check();
	})`, tabID, mustJSON(want))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("the badge of tab %d never said %q (it says %q): %v", tabID, want, badgeText(t, extPage, tabID), err)
	}
}

// shadowTexts returns the text of every shadow root of the page, closed
// ones included (CDP sees through them; the page does not).
func shadowTexts(t testing.TB, ctx context.Context) []string {
	t.Helper()
	all, pierce := int64(-1), true
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{Depth: &all, Pierce: &pierce})
	if err != nil {
		t.Fatalf("get the document: %v", err)
	}
	var out []string
	var walk func(n *cdp.Node, inShadow bool, acc *strings.Builder)
	walk = func(n *cdp.Node, inShadow bool, acc *strings.Builder) {
		if n.NodeName == "STYLE" || n.NodeName == "SCRIPT" {
			return
		}
		if inShadow && n.NodeType == 3 { // a text node
			acc.WriteString(n.NodeValue)
		}
		for _, c := range n.Children {
			walk(c, inShadow, acc)
		}
		for _, sr := range n.ShadowRoots {
			var b strings.Builder
			walk(sr, true, &b)
			out = append(out, fmt.Sprintf("%s: %s", sr.ShadowRootType, strings.TrimSpace(b.String())))
		}
	}
	walk(doc.Root, false, &strings.Builder{})
	return out
}

// activityJS is the activity log as an extension page shows it: [tool,
// outcome] of each entry, newest first.
const activityJS = `[...document.querySelectorAll(".wm-log li")].map((li) => [li.dataset.tool, li.dataset.outcome])`

// activityEntries reads the activity log as the extension page shows it
// (activityJS).
func activityEntries(t testing.TB, page context.Context) [][2]string {
	t.Helper()
	raw := eval[string](t, page, `JSON.stringify(`+activityJS+`)`)
	var out [][2]string
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitActivity waits until the activity log of the extension page shows
// want (activityJS). An entry says "running" until its call ends, and the
// log follows the calls a few times a second at most: the last call's
// outcome may come a moment after its answer reached the agent.
func waitActivity(t testing.TB, page context.Context, want [][2]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(page, 20*time.Second)
	defer cancel()
	cond := `JSON.stringify(` + activityJS + `) === ` + mustJSON(mustJSON(want))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](waitScript(cond), chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("activity log %v, want %v (%v)", activityEntries(t, page), want, err)
	}
}

// shotDir is where screenshots go: $WEBMCP_SCREENSHOTS, or a temporary
// directory of the test.
func shotDir(t testing.TB) string {
	if d := os.Getenv("WEBMCP_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("WEBMCP_SCREENSHOTS: %v", err)
		}
		return d
	}
	return t.TempDir()
}

// shoot saves a PNG of the page at width×height in a colour scheme to
// dir/name; a failed screenshot is logged, never a failure.
func shoot(t testing.TB, ctx context.Context, scheme string, width, height int64, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: height, DeviceScaleFactor: 2}); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	want := map[string]string{"light": "rgb(255, 255, 255)", "dark": "rgb(22, 25, 29)"}[scheme]
	waitPage(t, ctx, fmt.Sprintf(`getComputedStyle(document.body).backgroundColor === %q`, want))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(shotDir(t), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}
