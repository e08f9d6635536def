package e2e

// Ask-before-acting and agent activity, end to end: a site set to ask in
// the extension's own page, the consent window found as a CDP target and
// answered by its buttons' accessible names, the page's own run counts,
// the activity log, the badge. Both WebMCP modes.

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	askLabel         = "Ask before agents act on this site"
	askActing        = "Ask for every tool that is not read-only"
	askConsequential = "Ask only for tools the page marks consequential"
)

// waitClientTool waits until the MCP client cs lists tool name (its
// list_changed notifications wake b.changed).
func (b *bridge) waitClientTool(cs *mcp.ClientSession, name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			b.t.Fatalf("list tools: %v", err)
		}
		if slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name }) {
			return
		}
		select {
		case <-b.changed:
		case <-ctx.Done():
			b.t.Fatalf("the second shim never listed %s", name)
		}
	}
}

// answerConsent waits for a consent window other than the ones in seen,
// waits for its button name, and clicks it; it returns the window's id.
func (b *bridge) answerConsent(seen map[target.ID]bool, button string) target.ID {
	b.t.Helper()
	id := b.newConsent(seen)
	win := b.attach(id)
	waitInWindow(b.t, win, buttonReady(button))
	if err := tryClickNamed(win, "button", button); err != nil {
		infos, _ := chromedp.Targets(b.browser)
		var list []string
		for _, in := range infos {
			list = append(list, fmt.Sprintf("%s %s %s", in.TargetID, in.Type, in.URL))
		}
		b.t.Fatalf("click %q in consent window %s: %v; targets now: %s", button, id, err, strings.Join(list, " | "))
	}
	return id
}

// newConsent waits for a consent window that is not in seen, and adds it.
func (b *bridge) newConsent(seen map[target.ID]bool) target.ID {
	b.t.Helper()
	id := b.consentTarget(seen)
	seen[id] = true
	return id
}

// noNewConsent fails when a consent window not in seen exists.
func (b *bridge) noNewConsent(seen map[target.ID]bool, why string) {
	b.t.Helper()
	if _, ok := b.findConsent(b.browser, seen); ok {
		b.t.Fatalf("%s, yet a consent window opened", why)
	}
}

func TestConsent(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		origin := serveConsentSite(t)
		site, _ := b.open(origin + "/")
		waitPage(t, site, `document.body.dataset.ready === "true"`)
		b.waitTools("the test site's tools", func(ts map[string]*mcp.Tool) bool {
			return ts["act"] != nil && ts["peek"] != nil && ts["commit"] != nil && ts["other"] != nil
		})
		tabID := b.tabID(origin)
		seen := map[target.ID]bool{}
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
			if got := counts(t, site); !equalCounts(got, want) {
				t.Fatalf("the page ran its tools %v times, want %v", got, want)
			}
		}

		// A loopback site never asks by default.
		want(callAsync(b.client, "act", map[string]any{}), "OK ran act")
		b.noNewConsent(seen, "a loopback site asks by default")

		// The user sets the site to ask, in the extension's own page.
		settings, _ := b.open(extURL("ui/site-settings.html?origin=" + url.QueryEscape(origin)))
		waitPage(t, settings, byLabel(askLabel))
		chooseAsk(t, settings, askActing)
		waitPage(t, settings, savedAsk("acting"))

		// Allow runs the tool exactly once. Long values are folded.
		ch := callAsync(b.client, "act", map[string]any{"note": strings.Repeat("a long note that the window folds ", 10)})
		win := b.attach(b.newConsent(seen))
		waitInWindow(t, win, buttonReady("Allow"))
		if !eval[bool](t, win, `document.getElementById("request").textContent.includes("Long values are folded")`) {
			t.Errorf("the consent window does not say that it folded the long note")
		}
		clickNamed(t, win, "button", "Allow")
		want(ch, "OK ran act")
		wantCounts(map[string]int{"act": 2})

		// Deny: the agent hears that the user declined; the page never runs it.
		ch = callAsync(b.client, "act", map[string]any{})
		b.answerConsent(seen, "Deny")
		want(ch, "ISERROR", "declined", "did not run")
		wantCounts(map[string]int{"act": 2})

		// Read-only tools never ask.
		want(callAsync(b.client, "peek", map[string]any{}), "OK ran peek")
		b.noNewConsent(seen, "a read-only tool ran")
		wantCounts(map[string]int{"act": 2, "peek": 1})

		// No answer before the shim's --timeout is a decline. The call's
		// time runs from the moment the shim sends it, the window's opening
		// included (over 20 s once, on a busy machine): so the consent
		// window is open first, for a call that waits in it (the agent's
		// own, with the default timeout), and the quick call queues in it.
		// Its time then runs while the window lists it, however long the
		// window took to open. The window records that it listed the call.
		ch = callAsync(b.client, "act", map[string]any{})
		win = b.attach(b.newConsent(seen))
		waitInWindow(t, win, buttonReady("Deny"))
		eval[bool](t, win, `(() => {
			const listed = () => !document.getElementById("queue").hidden &&
				document.getElementById("queue-h").textContent === "Also waiting (1)";
			window.listedQuick = listed();
			new MutationObserver(() => { window.listedQuick ||= listed(); })
				.observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true});
			return true;
		})()`)
		// 10 s: the extension declines a tenth of it (at most 1 s) before
		// the shim gives up. That tenth is the one race left, the
		// product's own: it must hold the call's way from the shim to the
		// worker and the decline's way back, since the worker counts the
		// time the shim had left when it sent the call from when the call
		// reaches it.
		quick := b.connectShim("--timeout", "10s")
		b.waitClientTool(quick, "act")
		want(callAsync(quick, "act", map[string]any{}), "ISERROR", "declined", "did not answer")
		if !eval[bool](t, win, `window.listedQuick`) {
			t.Errorf("the consent window never listed the call it declined for want of an answer")
		}
		waitInWindow(t, win, `document.getElementById("queue").hidden && `+buttonReady("Deny"))
		clickNamed(t, win, "button", "Deny")
		want(ch, "ISERROR", "declined", "did not run")
		wantCounts(map[string]int{"act": 2, "peek": 1})

		// Closing the consent window declines too.
		ch = callAsync(b.client, "act", map[string]any{})
		closing, _ := chromedp.NewContext(b.browser, chromedp.WithTargetID(b.newConsent(seen)))
		if err := chromedp.Do(closing); err != nil {
			t.Fatalf("attach to the consent window: %v", err)
		}
		waitInWindow(t, closing, buttonReady("Deny"))
		if err := chromedp.Cancel(closing); err != nil { // closes the window, as the user would
			t.Fatalf("close the consent window: %v", err)
		}
		want(ch, "ISERROR", "declined", "closed the consent window")
		wantCounts(map[string]int{"act": 2, "peek": 1})

		// "Until the browser closes" stops asking for that tool only.
		ch = callAsync(b.client, "act", map[string]any{})
		b.answerConsent(seen, "Allow act on this site until the browser closes")
		want(ch, "OK ran act")
		want(callAsync(b.client, "act", map[string]any{}), "OK ran act")
		b.noNewConsent(seen, "a granted tool ran again")
		ch = callAsync(b.client, "other", map[string]any{})
		b.answerConsent(seen, "Deny")
		want(ch, "ISERROR", "declined")
		wantCounts(map[string]int{"act": 4, "peek": 1})

		// "Consequential": only the tools the page marks so ask.
		chooseAsk(t, settings, askConsequential)
		waitPage(t, settings, savedAsk("consequential"))
		want(callAsync(b.client, "other", map[string]any{}), "OK ran other")
		b.noNewConsent(seen, "a tool without consequentialHint ran")
		ch = callAsync(b.client, "commit", map[string]any{})
		b.answerConsent(seen, "Allow")
		want(ch, "OK ran commit")
		wantCounts(map[string]int{"act": 4, "peek": 1, "other": 1, "commit": 1})

		// The activity log lists each call with its outcome, newest first.
		log, _ := b.open(extURL("ui/activity.html"))
		waitActivity(t, log, [][2]string{
			{"commit", "result"}, {"other", "result"}, {"other", "declined"}, {"act", "result"}, {"act", "result"},
			{"act", "declined"}, {"act", "declined"}, {"act", "declined"}, {"peek", "result"}, {"act", "declined"}, {"act", "result"}, {"act", "result"},
		})
		if m == polyfill {
			shoot(t, log, "light", 420, 900, "activity-light.png")
			shoot(t, log, "dark", 420, 900, "activity-dark.png")
		}

		// The badge counts the tab's tools.
		waitBadge(t, log, tabID, "4")

		// Clear activity empties the log.
		clickNamed(t, log, "button", "Clear activity")
		waitPage(t, log, `document.querySelectorAll(".wm-log li").length === 0`)
	})
}

// savedAsk is a page condition of ui/site-settings.html: the choice value
// is chosen and the worker has stored it ("Saving…" until then).
func savedAsk(value string) string {
	return byLabel(askLabel) + `.value === "` + value + `" && document.querySelector(".wm-status").textContent === "Saved."`
}

func equalCounts(got, want map[string]int) bool {
	for _, k := range []string{"act", "peek", "commit", "other"} {
		if got[k] != want[k] {
			return false
		}
	}
	return true
}

// TestActivity: while an agent's call runs in a tab, the badge shows it and
// the page shows "<agent> is using <tool>" in a closed shadow root drawn by
// the extension; both go when the call ends.
func TestActivity(t *testing.T) {
	b := start(t, polyfill)
	origin := serveConsentSite(t)
	site, _ := b.open(origin + "/hold")
	waitPage(t, site, `document.body.dataset.ready === "true"`)
	b.waitTool("hold")
	tabID := b.tabID(origin)
	ext, _ := b.open(extURL("ui/activity.html"))
	waitBadge(t, ext, tabID, "1")

	ch := callAsync(b.client, "hold", map[string]any{})
	waitPage(t, site, `document.body.dataset.pending === "1"`)
	waitBadge(t, ext, tabID, "▶1")
	// The page sees a host element at most: its shadow root is closed.
	waitPage(t, site, `document.body.lastElementChild.tagName === "DIV" && document.body.lastElementChild.shadowRoot === null`)
	texts := shadowTexts(t, site)
	if len(texts) != 1 || !strings.HasPrefix(texts[0], "closed: ") || !strings.HasSuffix(texts[0], " is using hold") {
		t.Fatalf("the page's shadow roots say %q, want one closed root saying \"<agent> is using hold\"", texts)
	}
	shoot(t, site, "light", 640, 360, "activity-indicator.png")
	// The running call is in the log.
	waitPage(t, ext, `document.querySelector('.wm-log li[data-tool="hold"][data-outcome="running"]')`)

	eval[bool](t, site, `(window.release(), true)`)
	if got := outcome(t, ch); got != "OK released" {
		t.Fatalf("hold returned %q", got)
	}
	waitPage(t, site, `document.body.lastElementChild.tagName !== "DIV"`)
	waitBadge(t, ext, tabID, "1")
	waitPage(t, ext, `document.querySelector('.wm-log li[data-tool="hold"][data-outcome="result"]')`)
}

// The consent window for a call with short arguments, the common case: the
// tab by its title, nothing stray; a click in the moment the next waiting
// call is drawn in the same place (meant for the call before) does nothing
// to it. Screenshots in light and dark.
func TestConsentShortArguments(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		origin := serveConsentSite(t)
		site, _ := b.open(origin + "/")
		waitPage(t, site, `document.body.dataset.ready === "true"`)
		b.waitTools("the test site's tools", func(ts map[string]*mcp.Tool) bool { return ts["act"] != nil && ts["other"] != nil })
		b.setAsk(origin, "acting")

		seen := map[target.ID]bool{}
		first := callAsync(b.client, "act", map[string]any{"note": "hi"})
		win := b.attach(b.newConsent(seen))
		waitInWindow(t, win, buttonReady("Deny"))
		request := `document.getElementById("request")`
		if stray := eval[string](t, win, `[...`+request+`.childNodes].filter(n => n.nodeType !== 1).map(n => n.textContent).join("|")`); stray != "" {
			t.Errorf("the consent window has text outside its elements: %q", stray)
		}
		text := eval[string](t, win, request+`.innerText`)
		if strings.Contains(text, "null") || strings.Contains(text, "undefined") || strings.Contains(text, "folded") {
			t.Errorf("the consent window with short arguments says:\n%s", text)
		}
		tab := eval[string](t, win, `[...document.querySelectorAll("dt")].find(dt => dt.textContent === "Tab").nextElementSibling.textContent`)
		if tab != "Consent test site" {
			t.Errorf("the consent window shows the tab as %q, want its title %q", tab, "Consent test site")
		}
		if m == polyfill {
			for _, scheme := range []string{"light", "dark"} {
				shoot(t, win, scheme, 480, 560, "consent-"+scheme+".png")
			}
			waitInWindow(t, win, buttonReady("Deny"))
		}

		// A second call waits behind the first.
		second := callAsync(b.client, "other", map[string]any{})
		waitInWindow(t, win, `document.getElementById("queue-h").textContent === "Also waiting (1)"`)
		// Deny the first; the moment the second is drawn, click its Allow.
		armedAtClick := eval[string](t, win, `new Promise((resolve) => {
			const summary = () => document.getElementById("summary")?.textContent || "";
			const before = summary();
			const button = (name) => [...document.querySelectorAll("button")].find(b => b.textContent === name);
			const mo = new MutationObserver(() => {
				if (summary() === before || !button("Allow")) return;
				mo.disconnect();
				const armed = button("Allow").closest("[data-armed]").dataset.armed;
				button("Allow").click();
				resolve(armed);
			});
			mo.observe(document.getElementById("request"), {childList: true, subtree: true});
			button("Deny").click();
		})`)
		if armedAtClick != "false" {
			t.Errorf("the next call's buttons were armed (%q) the moment it was drawn", armedAtClick)
		}
		if got := outcome(t, first); !strings.HasPrefix(got, "ISERROR") || !strings.Contains(got, "declined") {
			t.Fatalf("the first call, denied: %s", got)
		}
		// The early click did nothing: the second call still waits, and is
		// declined by the Deny that follows once its buttons armed.
		waitInWindow(t, win, buttonReady("Deny"))
		if s := eval[string](t, win, `document.getElementById("summary").textContent`); !strings.Contains(s, " other ") {
			t.Fatalf("after the early click the window shows %q, want the second call (other) still waiting", s)
		}
		select {
		case got := <-second:
			t.Fatalf("a click in the moment the call was drawn answered it: %s", got)
		default:
		}
		clickNamed(t, win, "button", "Deny")
		if got := outcome(t, second); !strings.HasPrefix(got, "ISERROR") || !strings.Contains(got, "declined") {
			t.Fatalf("the second call, denied after the early click: %s", got)
		}
		if got := counts(t, site); !equalCounts(got, map[string]int{}) {
			t.Fatalf("the page ran its tools %v times, want none", got)
		}
	})
}
