package e2e

// The add-on's own pages in the Firefox tests. Firefox's BiDi leaves
// extension pages out of its browsing contexts (bug 1755014: no
// script.evaluate, no navigation to moz-extension://), so the tests reach
// them the way Firefox's own tests do: from the browser's chrome (a
// "moz:scope": "chrome" context, open to script.evaluate with
// --remote-allow-system-access), through a JSWindowActor registered for
// moz-extension:// documents whose child runs an expression in the page,
// as the page.

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/extfiles"
	"github.com/webmcp-bridge/bridge/protocol"
)

// extPageActorDir is where the actor's module goes in the profile: its
// chrome folder, which the extension process's sandbox may read.
const extPageActorDir = "chrome/webmcp-test"

// extPageActor is the child of the WebMCPTestPage actor: "eval" runs
// data.expr in the extension page as the page, awaits it, and answers its
// JSON.
// (A sandbox with the page's principal and the page as its prototype: the
// page's CSP forbids eval, and the sandbox sees the page's globals, chrome
// among them, as the page does.)
const extPageActor = `export class WebMCPTestPageChild extends JSWindowActorChild {
  async receiveMessage({ name, data }) {
    if (name === "shadowTexts") return this.shadowTexts();
    if (name !== "eval") throw new Error("unknown message " + name);
    const win = this.contentWindow;
    const sb = Cu.Sandbox(win, { sandboxPrototype: win, wantXrays: false, sameZoneAs: win });
    const json = await Cu.evalInSandbox("(async () => (" + data.expr + "))().then((v) => JSON.stringify(v === undefined ? null : v))", sb);
    return String(json);
  }
  // The text of every shadow root of the document, closed ones included
  // (which this privileged code sees and the page does not), as
  // "MODE: TEXT", without style sheets and scripts.
  shadowTexts() {
    const text = (n) => n.nodeType === 3 ? n.nodeValue : (n.nodeName === "STYLE" || n.nodeName === "SCRIPT") ? "" : [...n.childNodes].map(text).join("");
    const out = [];
    for (const el of this.document.querySelectorAll("*")) {
      const sr = el.openOrClosedShadowRoot;
      if (sr) out.push(sr.mode + ": " + text(sr).trim());
    }
    return JSON.stringify(out);
  }
}
`

// writeExtPageActor puts the actor's module into profile.
func writeExtPageActor(profile string) error {
	dir := filepath.Join(profile, extPageActorDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "WebMCPTestPageChild.sys.mjs"), []byte(extPageActor), 0o644)
}

// chromeContext is the browser window's chrome browsing context.
func (f *firefoxBridge) chromeContext() string {
	f.t.Helper()
	if f.chrome != "" {
		return f.chrome
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "browsingContext.getTree", map[string]any{"moz:scope": "chrome", "maxDepth": 0})
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
			URL     string `json:"url"`
		} `json:"contexts"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &tree)
	}
	for _, c := range tree.Contexts {
		if c.URL == "chrome://browser/content/browser.xhtml" {
			f.chrome = c.Context
			break
		}
	}
	if f.chrome == "" {
		f.t.Fatalf("no browser window among the chrome contexts: %s, %v", raw, err)
	}
	// The actor, once.
	f.evalIn(f.chrome, fmt.Sprintf(`(() => {
		const res = Services.io.getProtocolHandler("resource").QueryInterface(Ci.nsIResProtocolHandler);
		res.setSubstitution("webmcp-test", Services.io.newURI(%q));
		ChromeUtils.registerWindowActor("WebMCPTestPage", {
			child: {esModuleURI: "resource://webmcp-test/WebMCPTestPageChild.sys.mjs"},
			matches: ["moz-extension://*/*", "http://*/*"], allFrames: false,
		});
		return true;
	})()`, (&url.URL{Scheme: "file", Path: filepath.Join(f.profile, extPageActorDir) + "/"}).String()))
	return f.chrome
}

// openExtPage opens the add-on's page path (e.g. "ui/site-settings.html")
// in a new tab, as a trusted link.
func (f *firefoxBridge) openExtPage(path string) {
	f.t.Helper()
	f.evalIn(f.chromeContext(), fmt.Sprintf(`(openTrustedLinkIn(%q, "tab"), true)`, ffExtURL(path)))
}

// findExtPage waits until a page of the add-on whose URL ends in path
// (without its query, unless path has one) is open (in a tab, or in a window's sidebar) and not
// in skip (browsing context ids), and
// returns its browsing context id (a hang guard of 15 s).
func (f *firefoxBridge) findExtPage(path string, skip map[uint64]bool) uint64 {
	f.t.Helper()
	skipList := []uint64{}
	for id := range skip {
		skipList = append(skipList, id)
	}
	js := fmt.Sprintf(`(async () => {
		const want = %q, skip = %s;
		// The tabs of every window, and the page in each window's sidebar.
		const browsers = (win) => {
			const list = [...win.gBrowser.browsers];
			const side = win.SidebarController && win.SidebarController.browser;
			const panel = side && side.contentDocument && side.contentDocument.getElementById("webext-panels-browser");
			if (panel) list.push(panel);
			return list;
		};
		for (let i = 0; i < 150; i++) {
			for (const win of Services.wm.getEnumerator("navigator:browser")) {
				for (const b of browsers(win)) {
					const spec = want.includes("?") ? b.currentURI.spec : b.currentURI.spec.split("?")[0];
					if (spec.endsWith(want) && b.browsingContext && b.browsingContext.currentWindowGlobal && !skip.includes(b.browsingContext.id)) {
						return String(b.browsingContext.id);
					}
				}
			}
			await new Promise((r) => setTimeout(r, 100));
		}
		return "";
	})()`, ffExtURL(path), mustJSON(skipList))
	got := f.evalString(f.chromeContext(), js)
	var id uint64
	if _, err := fmt.Sscan(got, &id); err != nil {
		f.t.Fatalf("no page %s of the add-on opened", path)
	}
	return id
}

// extEvalIn evaluates the JavaScript expression expr (awaited) in the
// add-on's page of browsing context id, as the page, and returns its value
// as JSON. A page that is still replacing its first document is asked
// again.
func (f *firefoxBridge) extEvalIn(id uint64, expr string) string {
	f.t.Helper()
	js := fmt.Sprintf(`(async () => {
		const id = %d, expr = %q;
		for (let i = 0; ; i++) {
			const bc = BrowsingContext.get(id);
			if (!bc) throw new Error("the page is gone");
			try {
				return await bc.currentWindowGlobal.getActor("WebMCPTestPage").sendQuery("eval", {expr});
			} catch (e) {
				if (i >= 50 || !/AbortError|NotSupportedError|destroyed|TypeError: bc.currentWindowGlobal is null/.test(String(e))) throw e;
			}
			await new Promise((r) => setTimeout(r, 100));
		}
	})()`, id, expr)
	return f.evalString(f.chromeContext(), js)
}

// extEval is extEvalIn in the first open page of the add-on whose URL ends
// in path.
func (f *firefoxBridge) extEval(path, expr string) string {
	f.t.Helper()
	return f.extEvalIn(f.findExtPage(path, nil), expr)
}

// closeExtWindow closes the window of the add-on's page id, as the user
// would.
func (f *firefoxBridge) closeExtWindow(id uint64) {
	f.t.Helper()
	js := fmt.Sprintf(`(() => {
		for (const win of Services.wm.getEnumerator("navigator:browser")) {
			if (win.gBrowser.browsers.some((b) => b.browsingContext && b.browsingContext.id === %d)) {
				win.close();
				return "closed";
			}
		}
		return "";
	})()`, id)
	if f.evalString(f.chromeContext(), js) == "" {
		f.t.Fatalf("no window holds the add-on's page %d", id)
	}
}

// extClick clicks the button whose text is name in the add-on's page id,
// once it is ready (buttonReady); the click runs after the evaluation
// answers, as tryClickNamed's does (an answer that closes the window must
// not lose the evaluation's).
func (f *firefoxBridge) extClick(id uint64, name string) {
	f.t.Helper()
	f.extEvalIn(id, waitScript(buttonReady(name)))
	js := fmt.Sprintf(`(() => {
		const b = [...document.querySelectorAll("button")].find((b) => b.textContent === %s);
		if (!b) return false;
		b.focus();
		setTimeout(() => b.click(), 0);
		return true;
	})()`, mustJSON(name))
	if f.extEvalIn(id, js) != "true" {
		f.t.Fatalf("no button %q in the add-on's page", name)
	}
}

// In Firefox, ask-before-acting as in the Chromium suite's TestConsent: the
// user sets the site to ask in the add-on's own page (its messages to the
// background), and answers each call in the add-on's consent window (a
// popup window, windows.create): Allow runs the tool once, Deny and closing
// the window decline it, the page never runs a declined call; the badge
// counts the tab's tools and the activity log lists the calls.
func TestFirefoxConsent(t *testing.T) {
	f := startFirefox(t)
	origin := serveConsentSite(t)
	f.navigate(origin + "/")
	f.waitPage(`document.body.dataset.ready === "true"`)
	f.waitTools("the test site's tools", func(ts map[string]*mcp.Tool) bool {
		return ts["act"] != nil && ts["peek"] != nil && ts["commit"] != nil && ts["other"] != nil
	})
	tabID := f.tabID(origin)
	want := func(ch <-chan string, prefix string, words ...string) {
		t.Helper()
		got := outcome(t, ch)
		if !strings.HasPrefix(got, prefix) {
			t.Fatalf("got %q, want %s…", got, prefix)
		}
		for _, w := range words {
			if !strings.Contains(got, w) {
				t.Fatalf("got %q, want it to say %q", got, w)
			}
		}
	}
	wantCounts := func(want map[string]int) {
		t.Helper()
		var got map[string]int
		if err := json.Unmarshal([]byte(f.evalString(f.context, `JSON.stringify(window.counts)`)), &got); err != nil || !equalCounts(got, want) {
			t.Fatalf("the page ran its tools %v times (%v), want %v", got, err, want)
		}
	}

	// A loopback site never asks by default.
	want(callAsync(f.client, "act", map[string]any{}), "OK ran act")

	// The user sets the site to ask, in the add-on's own page.
	f.openExtPage("ui/site-settings.html?origin=" + url.QueryEscape(origin))
	settings := f.findExtPage("ui/site-settings.html", nil)
	f.extEvalIn(settings, waitScript(byLabel(askLabel)))
	choose := func(label string) {
		t.Helper()
		js := fmt.Sprintf(`(() => {
			const s = %s;
			const o = [...s.options].find((o) => o.textContent === %s);
			if (!o) return false;
			s.focus();
			s.value = o.value;
			s.dispatchEvent(new Event("input", {bubbles: true}));
			s.dispatchEvent(new Event("change", {bubbles: true}));
			return true;
		})()`, byLabel(askLabel), mustJSON(label))
		if f.extEvalIn(settings, js) != "true" {
			t.Fatalf("the drop-down %q has no choice %q", askLabel, label)
		}
	}
	choose(askActing)
	f.extEvalIn(settings, waitScript(savedAsk("acting")))

	// Allow runs the tool exactly once. Long values are folded.
	seen := map[uint64]bool{}
	newConsent := func() uint64 {
		t.Helper()
		id := f.findExtPage("ui/consent.html", seen)
		seen[id] = true
		return id
	}
	ch := callAsync(f.client, "act", map[string]any{"note": strings.Repeat("a long note that the window folds ", 10)})
	win := newConsent()
	f.extEvalIn(win, waitScript(buttonReady("Allow")))
	if f.extEvalIn(win, `document.getElementById("request").textContent.includes("Long values are folded")`) != "true" {
		t.Errorf("the consent window does not say that it folded the long note")
	}
	f.extClick(win, "Allow")
	want(ch, "OK ran act")
	wantCounts(map[string]int{"act": 2})

	// Deny: the agent hears that the user declined; the page never runs it.
	ch = callAsync(f.client, "act", map[string]any{})
	f.extClick(newConsent(), "Deny")
	want(ch, "ISERROR", "declined", "did not run")
	wantCounts(map[string]int{"act": 2})

	// Read-only tools never ask.
	want(callAsync(f.client, "peek", map[string]any{}), "OK ran peek")

	// Closing the consent window declines too.
	ch = callAsync(f.client, "act", map[string]any{})
	win = newConsent()
	f.extEvalIn(win, waitScript(buttonReady("Deny")))
	f.closeExtWindow(win)
	want(ch, "ISERROR", "declined", "closed the consent window")
	wantCounts(map[string]int{"act": 2, "peek": 1})

	// "Consequential": only the tools the page marks so ask.
	choose(askConsequential)
	f.extEvalIn(settings, waitScript(savedAsk("consequential")))
	want(callAsync(f.client, "other", map[string]any{}), "OK ran other")
	ch = callAsync(f.client, "commit", map[string]any{})
	f.extClick(newConsent(), "Allow")
	want(ch, "OK ran commit")
	wantCounts(map[string]int{"act": 2, "peek": 1, "other": 1, "commit": 1})

	// The activity log lists each call with its outcome, newest first; the
	// badge counts the tab's tools.
	f.openExtPage("ui/activity.html")
	log := f.findExtPage("ui/activity.html", nil)
	f.waitActivity(log, [][2]string{
		{"commit", "result"}, {"other", "result"}, {"act", "declined"}, {"peek", "result"},
		{"act", "declined"}, {"act", "result"}, {"act", "result"},
	})
	f.waitBadge(log, tabID, "4")
}

// waitOrGiveUp is waitScript(cond) that resolves false after 15 s, a hang
// guard under evalIn's 20 s, so that the test can say what it found.
func waitOrGiveUp(cond string) string {
	return `Promise.race([` + waitScript(cond) + `, new Promise((resolve) => setTimeout(() => resolve(false), 15000))])`
}

// waitActivity waits until the activity log in the add-on's page id shows
// want ([tool, outcome], newest first). An entry says "running" until its
// call ends, and the log follows the calls a few times a second at most:
// the last call's outcome may come a moment after its answer reached the
// agent.
func (f *firefoxBridge) waitActivity(id uint64, want [][2]string) {
	f.t.Helper()
	cond := `JSON.stringify(` + activityJS + `) === ` + mustJSON(mustJSON(want))
	if f.extEvalIn(id, waitOrGiveUp(cond)) == "true" {
		return
	}
	var got [][2]string
	if err := json.Unmarshal([]byte(f.extEvalIn(id, activityJS)), &got); err != nil {
		f.t.Fatal(err)
	}
	f.t.Fatalf("activity log %v, want %v", got, want)
}

// waitBadge waits until the badge of tab tabID says want, asking from the
// add-on's page id. Nothing tells a page when a badge changes (and the
// worker shows a change in the calls under way a moment later, CALLS_DELAY
// in extension/worker/badge.js), so the page asks again every 50 ms (also
// while a page just opened has no chrome yet: extEvalIn asks the document
// that replaces it); after 15 s, a hang guard, the test fails with what the
// badge says.
func (f *firefoxBridge) waitBadge(id uint64, tabID int, want string) {
	f.t.Helper()
	js := fmt.Sprintf(`new Promise((resolve) => {
		const until = Date.now() + 15000;
		const badge = () => typeof chrome === "undefined" ? Promise.resolve(null) : chrome.action.getBadgeText({tabId: %d});
		const check = () => badge().then((t) => t === %s || Date.now() > until ? resolve(t) : setTimeout(check, 50));
		check();
	})`, tabID, mustJSON(want))
	var got string
	if err := json.Unmarshal([]byte(f.extEvalIn(id, js)), &got); err != nil {
		f.t.Fatal(err)
	}
	if got != want {
		f.t.Fatalf("the badge of tab %d says %q, want %q", tabID, got, want)
	}
}

// addonXPI zips the installed Firefox add-on into an .xpi (unsigned).
func addonXPI(t *testing.T) string {
	t.Helper()
	files, err := extfiles.Read(filepath.Join(installDir, "share", "webmcp-bridge", "firefox-extension"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "webmcp-bridge.xpi")
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(out)
	for _, f := range files {
		w, err := zw.Create(f.Name)
		if err == nil {
			_, err = w.Write(f.Data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// What the README tells a user about signing, as this Firefox ESR does it:
// the add-on zipped as an .xpi, unsigned, is refused as a permanent add-on
// (ERROR_SIGNEDSTATE_REQUIRED), and taken once xpinstall.signatures.required
// is false (which ESR, Developer Edition and Nightly honour; release
// Firefox does not).
func TestFirefoxUnsignedXPI(t *testing.T) {
	xpi := addonXPI(t)
	install := func(f *firefoxBridge) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := f.bidi.Command(ctx, "webExtension.install", map[string]any{
			"extensionData": map[string]any{"type": "archivePath", "path": xpi}, "moz:permanent": true,
		})
		return err
	}
	if err := install(startFirefox(t)); err == nil || !strings.Contains(err.Error(), "ERROR_SIGNEDSTATE_REQUIRED") {
		t.Errorf("an unsigned .xpi installed as a permanent add-on: %v, want ERROR_SIGNEDSTATE_REQUIRED", err)
	}
	f := startFirefox(t, `"xpinstall.signatures.required", false`)
	if err := install(f); err != nil {
		t.Fatalf("with xpinstall.signatures.required false: %v", err)
	}
	f.navigate(demoURL("127.0.0.1", "/"))
	f.waitTool("echo")
}

// openSidebar opens the add-on's sidebar (sidebar_action) in the browser
// window, as its toolbar button or View → Sidebar would.
func (f *firefoxBridge) openSidebar() {
	f.t.Helper()
	// makeWidgetId: the add-on ID lowercased, other than [a-z0-9_-] as "_".
	id := regexp.MustCompile(`[^a-z0-9_-]`).ReplaceAllString(strings.ToLower(protocol.FirefoxAddonID), "_") + "-sidebar-action"
	f.evalIn(f.chromeContext(), fmt.Sprintf(`SidebarController.show(%q).then(() => true)`, id))
}

// In Firefox the panel runs in the sidebar (sidebar_action, where Chromium
// has its side panel; the Chromium suite's TestPanelSidePanel): it shows
// the active tab, offers no button to open itself, and follows the user to
// another tab.
func TestFirefoxSidebar(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", "/"))
	f.waitTool("select_slice")
	id := f.tabID(fmt.Sprintf("http://localhost:%d", demoPort))
	f.openSidebar()
	side := f.findExtPage("ui/panel.html", nil)
	f.extEvalIn(side, waitScript(fmt.Sprintf(`document.body.dataset.ready === "true" && document.body.dataset.tab === "%d"`, id)))
	if f.extEvalIn(side, `!document.getElementById("open-side-panel").hidden`) != "false" {
		t.Errorf("the sidebar offers to open the sidebar")
	}
	if got := f.extEvalIn(side, `[...document.querySelectorAll("[data-tool], .wm-tool, li")].map((e) => e.textContent).join(" ").includes("select_slice")`); got != "true" {
		t.Errorf("the sidebar does not list the tab's tools")
	}
	// Another tab comes to the front: the sidebar follows.
	other := f.newTab(demoURL("127.0.0.1", "/"))
	if _, err := f.bidi.Command(bridgetest.Context(t), "browsingContext.activate", map[string]any{"context": other}); err != nil {
		t.Fatal(err)
	}
	f.waitTools("the second demo tab's tools", func(m map[string]*mcp.Tool) bool {
		for _, tool := range m {
			if strings.Contains(tool.Description, "127.0.0.1") {
				return true
			}
		}
		return false
	})
	second := f.tabID(fmt.Sprintf("http://127.0.0.1:%d", demoPort))
	f.extEvalIn(side, waitScript(fmt.Sprintf(`document.body.dataset.tab === "%d"`, second)))
}

// In Firefox the popup's panel (the action's default_popup, here in a tab
// for the tab it names) offers to open the sidebar.
func TestFirefoxPanelButton(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", "/"))
	f.waitTool("select_slice")
	id := f.tabID(fmt.Sprintf("http://localhost:%d", demoPort))
	f.openExtPage(fmt.Sprintf("ui/panel.html?tab=%d", id))
	panel := f.findExtPage(fmt.Sprintf("ui/panel.html?tab=%d", id), nil)
	f.extEvalIn(panel, waitScript(`document.body.dataset.ready === "true"`))
	if got := f.extEvalIn(panel, `(() => { const b = document.getElementById("open-side-panel"); return b.hidden ? "hidden" : b.textContent; })()`); got != `"Open in sidebar"` {
		t.Errorf("the panel's button to the sidebar: %s, want \"Open in sidebar\"", got)
	}
}

// In Firefox the add-on's background is an event page, which Firefox stops
// when it has been idle for extensions.background.idle.timeout (30 s; 2 s
// here), unless a native-messaging port is open: the host link keeps it
// alive. The test waits for Firefox's own idle check to say so (its
// "background-script-reset-idle" event, reason "nativeapp"), twice, then
// calls a tool through the same host.
func TestFirefoxEventPageKeptAlive(t *testing.T) {
	f := startFirefox(t, `"extensions.background.idle.timeout", 2000`)
	f.navigate(demoURL("127.0.0.1", "/"))
	f.waitTool("echo")
	before, err := f.shimCLI("status")
	if err != nil {
		t.Fatalf("webmcp-shim status: %v", err)
	}
	js := fmt.Sprintf(`new Promise((resolve) => {
		const ext = WebExtensionPolicy.getByID(%q).extension;
		let n = 0;
		const on = (_, info) => {
			if (info && info.reason === "nativeapp" && ++n === 2) {
				ext.off("background-script-reset-idle", on);
				resolve("nativeapp");
			}
		};
		ext.on("background-script-reset-idle", on);
	})`, protocol.FirefoxAddonID)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "script.evaluate", map[string]any{
		"expression": js, "target": map[string]any{"context": f.chromeContext()}, "awaitPromise": true,
	})
	if err != nil || !strings.Contains(string(raw), `"value":"nativeapp"`) {
		t.Fatalf("Firefox's idle check never kept the background alive for its native port: %s, %v", raw, err)
	}
	res := f.call(bridgetest.Context(t), "echo", map[string]any{"text": "still here"})
	if res.IsError || text(res) != "still here" {
		t.Errorf("echo after the idle checks = %q (error %v)", text(res), res.IsError)
	}
	after, err := f.shimCLI("status")
	hostPID := regexp.MustCompile(`host pid \d+`)
	if err != nil || hostPID.FindString(after) == "" || hostPID.FindString(after) != hostPID.FindString(before) {
		t.Errorf("the host changed while the background was idle (%v):\nbefore: %s\nafter: %s", err, before, after)
	}
}

// pageShadowTexts returns the text of every shadow root, closed ones
// included, of the tab whose page is at url (a prefix), as "MODE: TEXT".
func (f *firefoxBridge) pageShadowTexts(url string) []string {
	f.t.Helper()
	js := fmt.Sprintf(`(async () => {
		for (const win of Services.wm.getEnumerator("navigator:browser")) {
			for (const b of win.gBrowser.browsers) {
				if (b.currentURI.spec.startsWith(%q)) {
					return await b.browsingContext.currentWindowGlobal.getActor("WebMCPTestPage").sendQuery("shadowTexts", {});
				}
			}
		}
		throw new Error("no tab at %s");
	})()`, url, url)
	var out []string
	if err := json.Unmarshal([]byte(f.evalString(f.chromeContext(), js)), &out); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// In Firefox, while an agent's call runs in a tab, the badge shows it and
// the page shows "<agent> is using <tool>" in a closed shadow root that the
// add-on's content script draws (the Chromium suite's TestActivity); both
// go when the call ends, and the activity log has it.
func TestFirefoxActivity(t *testing.T) {
	f := startFirefox(t)
	origin := serveConsentSite(t)
	f.navigate(origin + "/hold")
	f.waitPage(`document.body.dataset.ready === "true"`)
	f.waitTool("hold")
	tabID := f.tabID(origin)
	f.openExtPage("ui/activity.html")
	ext := f.findExtPage("ui/activity.html", nil)
	f.waitBadge(ext, tabID, "1")

	ch := callAsync(f.client, "hold", map[string]any{})
	f.waitPage(`document.body.dataset.pending === "1"`)
	f.waitBadge(ext, tabID, "▶1")
	// The page sees a host element at most: its shadow root is closed.
	f.waitPage(`document.body.lastElementChild.tagName === "DIV" && document.body.lastElementChild.shadowRoot === null`)
	texts := f.pageShadowTexts(origin + "/hold")
	if len(texts) != 1 || !strings.HasPrefix(texts[0], "closed: ") || !strings.HasSuffix(texts[0], " is using hold") {
		t.Fatalf("the page's shadow roots say %q, want one closed root saying \"<agent> is using hold\"", texts)
	}
	f.extEvalIn(ext, waitScript(`document.querySelector('.wm-log li[data-tool="hold"][data-outcome="running"]')`))

	f.evalIn(f.context, `window.release()`)
	if got := outcome(t, ch); got != "OK released" {
		t.Fatalf("hold returned %q", got)
	}
	f.waitPage(`document.body.lastElementChild.tagName !== "DIV"`)
	f.waitBadge(ext, tabID, "1")
	f.extEvalIn(ext, waitScript(`document.querySelector('.wm-log li[data-tool="hold"][data-outcome="result"]')`))
}
