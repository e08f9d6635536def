package e2e

// What the extension trusts, end to end: the site of a framed tool, not
// its tab's, decides whether a call asks; open_page checks the site the tab
// landed on after a redirect; content scripts cannot write the extension's
// storage.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// framedToolsPage registers one tool, act (no hints), that tells its
// parent each time it runs; it tells its parent too once it is registered.
const framedToolsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Framed tools</title></head>
<body><p>A framed site's tool.</p>
<script>
const mc = document.modelContext || navigator.modelContext;
Promise.resolve(mc.registerTool({
  name: "framed_act", description: "Acts in the framed site.", inputSchema: {type: "object"},
  execute: async () => { parent.postMessage({ran: "framed_act"}, "*"); return "ran framed_act"; },
})).then(() => parent.postMessage({ready: true}, "*"));
</script></body></html>`

// framingPage frames the URL in its query (src) and keeps what the frame
// tells it: window.runs (their number also as body[data-runs], for
// waitScript, which sees DOM changes, not a variable's), and
// document.body.dataset.ready.
const framingPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Framing page</title></head>
<body><h1>A loopback page that frames another site</h1>
<script>
window.runs = [];
addEventListener("message", (e) => {
  if (e.data && e.data.ready) document.body.dataset.ready = "true";
  if (e.data && e.data.ran) { window.runs.push(e.data.ran); document.body.dataset.runs = String(window.runs.length); }
});
const f = document.createElement("iframe");
f.src = new URLSearchParams(location.search).get("src");
f.allow = "tools"; // WebMCP's permissions policy: a cross-origin frame needs it delegated
document.body.append(f);
</script></body></html>`

// serveTrustSite serves, on 127.0.0.1 (so also on localhost, another
// origin on the same port): framedToolsPage at /tools, framingPage at
// /frame?src=URL, and a redirect to the URL in the query at /r?to=URL. It
// returns the port.
func serveTrustSite(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		case "/frame":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, framingPage)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, framedToolsPage)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// consentText waits for a consent window that is not in seen and returns
// it with its text once the button named button is ready.
func (b *bridge) consentText(seen map[target.ID]bool, button string) (context.Context, string) {
	b.t.Helper()
	win := b.attach(b.newConsent(seen))
	waitInWindow(b.t, win, buttonReady(button))
	return win, eval[string](b.t, win, `document.body.innerText`)
}

// TestConsentFramed: a loopback page (127.0.0.1, which never asks) frames
// a site set to ask (localhost on the same port): the framed site's tool
// asks, and the consent window names both sites; Deny declines and the
// tool never runs, Allow runs it once.
func TestConsentFramed(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		port := serveTrustSite(t)
		framed := fmt.Sprintf("http://localhost:%d", port)
		framing := fmt.Sprintf("http://127.0.0.1:%d", port)

		// The user sets the framed site to ask (TestConsent does it with the
		// site settings' controls).
		b.setAsk(framed, "acting")

		page, _ := b.open(framing + "/frame?src=" + url.QueryEscape(framed+"/tools"))
		waitPage(t, page, `document.body.dataset.ready === "true"`)
		if tool := b.waitTool("framed_act"); !strings.Contains(tool.Description, strings.TrimPrefix(framed, "http://")) {
			t.Fatalf("framed_act is not the framed site's: %s", tool.Description)
		}
		seen := map[target.ID]bool{}

		ch := callAsync(b.client, "framed_act", map[string]any{})
		win, shown := b.consentText(seen, "Deny")
		for _, site := range []string{framed, framing} {
			if !strings.Contains(shown, site) {
				t.Errorf("the consent window does not name %s:\n%s", site, shown)
			}
		}
		clickNamed(t, win, "button", "Deny")
		if got := outcome(t, ch); !strings.HasPrefix(got, "ISERROR") || !strings.Contains(got, "declined") || !strings.Contains(got, "did not run") {
			t.Fatalf("framed_act after Deny = %q, want it declined", got)
		}
		if runs := eval[[]string](t, page, `window.runs`); len(runs) != 0 {
			t.Fatalf("the framed tool ran %v after Deny", runs)
		}

		// Allow: it runs, once (the check above would see a run).
		ch = callAsync(b.client, "framed_act", map[string]any{})
		b.answerConsent(seen, "Allow")
		if got := outcome(t, ch); got != "OK ran framed_act" {
			t.Fatalf("framed_act after Allow = %q", got)
		}
		waitPage(t, page, `document.body.dataset.runs === "1"`)
	})
}

// TestOpenPageRedirect: open_page of an allowed site (127.0.0.1) that
// redirects to a site that is not allowed (127.0.0.2) asks about that
// site; Deny closes the tab, and the agent gets an error that tells
// nothing of the page but its site.
func TestOpenPageRedirect(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		port := serveTrustSite(t)
		final := blockedOrigin + "/?token=SECRET"
		start := fmt.Sprintf("http://127.0.0.1:%d/r?to=%s", port, url.QueryEscape(final))
		// The user's own tab: its tools also say that the browser is there.
		mine, _ := b.open(demoURL("localhost", "/?mine"))
		eval[any](t, mine, `window.demo.ready`)
		b.waitTool("select_slice")
		seen := map[target.ID]bool{}

		ch := callAsync(b.client, "open_page", map[string]any{"url": start})
		win, shown := b.consentText(seen, "Deny")
		if !strings.Contains(shown, blockedOrigin) {
			t.Errorf("the consent window does not name %s:\n%s", blockedOrigin, shown)
		}
		// While the user is asked, the tab shows the other site's page: it
		// is not listed at the allowed address it was redirected from.
		for _, lt := range b.listTabs() {
			if strings.Contains(lt.URL, "/r?to=") || (lt.Allowed && strings.HasPrefix(lt.Origin, "http://127.0.0.1")) {
				t.Errorf("while the consent window asks about %s, list_tabs lists %+v", blockedOrigin, lt)
			}
		}
		clickNamed(t, win, "button", "Deny")
		got := outcome(t, ch)
		if !strings.HasPrefix(got, "ISERROR") || !strings.Contains(got, "declined") || !strings.Contains(got, blockedOrigin) {
			t.Fatalf("open_page after Deny = %q, want it declined, naming %s", got, blockedOrigin)
		}
		if strings.Contains(got, "SECRET") || strings.Contains(got, blockedOrigin+"/") || strings.Contains(got, "Trace viewer") {
			t.Fatalf("open_page after Deny tells of the page: %q", got)
		}
		b.waitNoPage(blockedOrigin)
		var tabs struct {
			Tabs []struct {
				Origin string `json:"origin"`
			} `json:"tabs"`
		}
		json.Unmarshal([]byte(text(b.call(context.Background(), "list_tabs", map[string]any{}))), &tabs)
		for _, tab := range tabs.Tabs {
			if tab.Origin == blockedOrigin {
				t.Errorf("list_tabs still shows a tab of %s after Deny", blockedOrigin)
			}
		}
	})
}

// waitNoPage waits until no page target's URL starts with prefix.
func (b *bridge) waitNoPage(prefix string) {
	b.t.Helper()
	b.waitTargetsGone("a page of "+prefix, func(in *target.Info) bool { return in.Type == "page" && strings.HasPrefix(in.URL, prefix) })
}

// TestStorageClosedToContentScripts: the extension's content script (its
// isolated world in a page of an allowed site) cannot write storage.local,
// where the sites turned off are (siteBlocks; the allowed sites themselves
// are the browser's host permissions, out of any content script's reach);
// the extension's own pages read it unchanged.
func TestStorageClosedToContentScripts(t *testing.T) {
	b := start(t, polyfill)
	tab, cancel := chromedp.NewContext(b.browser)
	t.Cleanup(cancel)
	// The extension's content scripts run in an isolated world named after it.
	worlds := make(chan runtime.ExecutionContextID, 16)
	if err := chromedp.Listen(tab, func(ev any) {
		e, ok := ev.(*runtime.EventExecutionContextCreated)
		if !ok || e.Context.Name != "WebMCP bridge" {
			return
		}
		var aux struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e.Context.AuxData, &aux) == nil && aux.Type == "isolated" {
			select {
			case worlds <- e.Context.ID:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := navigate(tab, demoURL("localhost", "/")); err != nil {
		t.Fatal(err)
	}
	var world runtime.ExecutionContextID
	select {
	case world = <-worlds:
	case <-time.After(20 * time.Second):
		t.Fatal("the extension's content script never ran in the page")
	}
	write := `(async () => {
		if (!chrome.storage || !chrome.storage.local) return "no chrome.storage.local";
		try {
			await chrome.storage.local.set({siteBlocks: ["*://*:*"]});
			return "written";
		} catch (e) {
			return "refused: " + e.message;
		}
	})()`
	yes := true
	res, err := chromedp.Call(tab, runtime.Evaluate, runtime.EvaluateParams{Expression: write, ContextID: world, AwaitPromise: &yes, ReturnByValue: &yes})
	if err != nil {
		t.Fatalf("evaluate in the content script's world: %v", err)
	}
	var got string
	if res.ExceptionDetails != nil {
		got = "threw: " + res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			got += " " + res.ExceptionDetails.Exception.Description
		}
	} else if err := json.Unmarshal(res.Result.Value, &got); err != nil {
		t.Fatalf("the write answered %s", res.Result.Value)
	}
	t.Logf("a content script's write of the blocks: %s", got)
	if got == "written" {
		t.Fatal("a content script wrote the blocks")
	}
	ext, _ := b.open(extURL("ui/options.html"))
	if list := eval[string](t, ext, `chrome.storage.local.get("siteBlocks").then((s) => JSON.stringify(s.siteBlocks || null))`); strings.Contains(list, "*://*:*") {
		t.Fatalf("the blocks are %s", list)
	}
}
