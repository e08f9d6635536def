package e2e

// The extension's panel (extension/ui/panel.html?tab=<id>), driven by
// accessible names from the keyboard: the site switch, a new site, the
// context chips (include/exclude, raw JSON, pin), the allowed sites on the
// options page, and screenshots in light and dark.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/extensions"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/uicontext"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// localOrigin is the demo app's origin on localhost.
func localOrigin() string { return fmt.Sprintf("http://localhost:%d", demoPort) }

// The demo's own tab, its panel, and slice 3 selected (CommitNavigation).
func (b *bridge) demoWithPanel() (demo, panel context.Context, tabID int) {
	b.t.Helper()
	demo = b.openDemo("localhost")
	click(b.t, demo, "3")
	b.getUIContext() // the click has reached the extension
	tabID = b.tabID(localOrigin())
	panel = b.openPanel(tabID, demo)
	return demo, panel, tabID
}

// The connection and the agent; the site switch. Off: the site's tools leave
// the connected agent (tools/list_changed) and its context, URL and title
// stop leaving the browser; on: they come back.
func TestPanelSiteSwitch(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		_, panel, _ := b.demoWithPanel()
		// Connection: the host, and the agent by the name and version its
		// MCP client gave in initialize ("e2e 1").
		waitPage(t, panel, `document.getElementById("host-status").textContent.startsWith("Connected")`)
		waitPage(t, panel, `[...document.querySelectorAll(".agents li")].some(li => li.textContent.startsWith("e2e 1"))`)
		if role, _ := axControl(t, panel, "Open in side panel"); role != "button" {
			t.Errorf("Open in side panel is a %q, want a button", role)
		}
		if role, checked := axControl(t, panel, siteSwitch); role != "switch" || checked != "true" {
			t.Fatalf("%q is a %q checked=%q; want a switch that is on for localhost", siteSwitch, role, checked)
		}
		// The tools, marked read-only or acting from their annotations.
		waitPage(t, panel, `document.querySelector('[data-tool="select_slice"] .tag.act') && document.querySelector('[data-tool="get_selection"] .tag.read')`)

		press(t, panel, siteSwitch)
		waitSwitch(t, panel, siteSwitch, false)
		b.waitTools("the site's tools to leave the agent", func(m map[string]*mcp.Tool) bool { return m["select_slice"] == nil && m["get_selection"] == nil })
		if _, checked := axControl(t, panel, siteSwitch); checked != "false" {
			t.Errorf("after turning it off, the switch's checked state is %q", checked)
		}
		res := text(b.call(context.Background(), "get_ui_context", map[string]any{}))
		if strings.Contains(res, "CommitNavigation") || strings.Contains(res, localOrigin()+"/") {
			t.Errorf("get_ui_context still shows the site turned off:\n%s", res)
		}
		out, view := b.hookContext()
		if strings.Contains(out, "CommitNavigation") || strings.Contains(out, "localhost") {
			t.Errorf("webmcp-shim context still shows the site turned off:\n%s", out)
		}
		if view.Note != uicontext.NoteNotAllowed || view.Tab != nil || len(view.Providers) != 0 {
			t.Errorf("webmcp-shim context --json for the site turned off: note %q, tab %+v, providers %+v; want only the note %q", view.Note, view.Tab, view.Providers, uicontext.NoteNotAllowed)
		}
		if tabs := text(b.call(context.Background(), "list_tabs", map[string]any{})); strings.Contains(tabs, localOrigin()+"/") || strings.Contains(tabs, "Trace") {
			t.Errorf("list_tabs shows the URL or title of the site turned off:\n%s", tabs)
		}

		press(t, panel, siteSwitch)
		waitSwitch(t, panel, siteSwitch, true)
		b.waitTools("the site's tools to come back", func(m map[string]*mcp.Tool) bool { return m["select_slice"] != nil && m["get_selection"] != nil })
		if res := text(b.call(context.Background(), "get_ui_context", map[string]any{})); !strings.Contains(res, selectionProvider) {
			t.Errorf("the context did not come back with the site:\n%s", res)
		}
	})
}

// A loopback address outside the default list (issue FID): its page runs
// no script of the extension and the bridge does not list its tab. The
// user clicks the toolbar button on it (activeTab: the popup sees the
// tab), turns the site on in the popup, the browser grants it (asked
// before, see approvedBefore), the tab reloads with the extension's
// scripts and its tools reach the agent; removed on the options page,
// they leave again.
func TestPanelNewSite(t *testing.T) {
	b := start(t, polyfill)
	b.openDemo("localhost")
	blocked := b.openBeside(blockedOrigin + "/")
	eval[bool](t, blocked, `window.demo.ready.then(() => true, () => false)`)
	if eval[bool](t, blocked, `"modelContext" in document`) {
		t.Fatalf("a page of %s has document.modelContext before the site was turned on", blockedOrigin)
	}
	fromBlocked := func(m map[string]*mcp.Tool) bool {
		for _, tool := range m {
			if strings.Contains(tool.Description, "127.0.0.2") {
				return true
			}
		}
		return false
	}
	panel := b.clickToolbarButton(blockedOrigin + "/")
	waitPage(t, panel, `document.body.dataset.ready === "true" && document.querySelector(".origin code") && document.querySelector(".origin code").textContent === `+mustJSON(blockedOrigin))
	if role, checked := axControl(t, panel, siteSwitch); role != "switch" || checked != "false" {
		t.Fatalf("%q is a %q checked=%q; want a switch that is off for %s", siteSwitch, role, checked, blockedOrigin)
	}

	press(t, panel, siteSwitch)
	b.waitTools("the new site's tools", fromBlocked)
	if !eval[bool](t, blocked, `"modelContext" in document`) {
		t.Errorf("the tab of the newly allowed site was not reloaded with the extension's scripts")
	}
	// The list of allowed sites has it, as has the options page.
	options := b.openUI("ui/options.html")
	waitPage(t, options, byLabel("Remove "+blockedOrigin)+` !== undefined && `+byLabel("Remove http://localhost:*")+` !== undefined`)
	if role, _ := axControl(t, options, "Remove "+blockedOrigin); role != "button" {
		t.Errorf("Remove %s is a %q, want a button", blockedOrigin, role)
	}
	press(t, options, "Remove "+blockedOrigin)
	b.waitTools("the removed site's tools to leave", func(m map[string]*mcp.Tool) bool { return !fromBlocked(m) })
	waitPage(t, options, byLabel("Remove "+blockedOrigin)+` === undefined`)
	// The browser's own list agrees: the grant went back.
	if got := eval[string](t, options, `chrome.permissions.getAll().then((p) => p.origins.join(" "))`); strings.Contains(got, "127.0.0.2") {
		t.Errorf("the browser still grants 127.0.0.2: %s", got)
	}
}

// clickToolbarButton clicks the extension's toolbar button on the tab
// showing url (CDP Extensions.triggerAction, as the user's click: it grants
// activeTab) and returns the popup it opens.
func (b *bridge) clickToolbarButton(url string) context.Context {
	b.t.Helper()
	tabs, err := chromedp.CallBrowser(b.browser, target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{Type: "tab"}}})
	if err != nil {
		b.t.Fatal(err)
	}
	var tab target.ID
	for _, in := range tabs.TargetInfos {
		if strings.HasPrefix(in.URL, url) {
			tab = in.TargetID
		}
	}
	if tab == "" {
		b.t.Fatalf("no tab shows %s", url)
	}
	if _, err := chromedp.CallBrowser(b.browser, extensions.TriggerAction, extensions.TriggerActionParams{ID: protocol.ExtensionID, TargetID: string(tab)}); err != nil {
		b.t.Fatalf("click the toolbar button: %v", err)
	}
	ctx, cancel := context.WithTimeout(b.browser, 20*time.Second)
	defer cancel()
	var popup target.ID
	if err := awaitTargets(ctx, func(infos []*target.Info) bool {
		for _, in := range infos {
			if in.Type == "page" && in.URL == extURL("ui/panel.html") {
				popup = in.TargetID
				return true
			}
		}
		return false
	}); err != nil {
		b.t.Fatalf("no popup after the toolbar button: %v", err)
	}
	return b.attach(popup)
}

// The context strip: a chip per provider with its summary; the raw JSON it
// shows is what get_ui_context returns for that provider; excluded, the
// provider is in neither get_ui_context nor webmcp-shim context, and cannot
// be pinned; included again, it is back.
func TestPanelChips(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		_, panel, _ := b.demoWithPanel()
		include := "Include " + selectionProvider
		chip := `document.querySelector('[data-chip="` + selectionProvider + `"]')`
		waitPage(t, panel, chip+` && `+chip+`.querySelector(".summary").textContent.includes("CommitNavigation")`)
		if role, checked := axControl(t, panel, include); role != "switch" || checked != "true" {
			t.Fatalf("%q is a %q checked=%q; want a switch that is on", include, role, checked)
		}
		if role, _ := axControl(t, panel, "Pin "+selectionProvider); role != "button" {
			t.Errorf("Pin %s is a %q, want a button", selectionProvider, role)
		}

		// The raw JSON, expanded from the keyboard, is what the agent gets.
		press(t, panel, "Show raw JSON of "+selectionProvider)
		raw := `document.querySelector('[data-raw="chip:` + selectionProvider + `"]')`
		waitPage(t, panel, `!`+raw+`.hidden && `+byLabel("Show raw JSON of "+selectionProvider)+`.getAttribute("aria-expanded") === "true"`)
		shown := eval[string](t, panel, raw+`.querySelector("pre").textContent`)
		var got, want any
		if err := json.Unmarshal([]byte(shown), &got); err != nil {
			t.Fatalf("the raw view is not JSON (%v): %s", err, shown)
		}
		c := b.getUIContext()
		for _, p := range c.Providers {
			if p.ID == selectionProvider {
				want = jsonValue(t, p)
			}
		}
		if want == nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the panel's raw JSON of %s is\n%s\nget_ui_context gives\n%s", selectionProvider, shown, mustJSON(want))
		}

		// Excluded: it never leaves the browser.
		press(t, panel, include)
		waitSwitch(t, panel, include, false)
		c = b.getUIContext()
		if _, _, ok := c.provider(selectionProvider); ok || c.Descriptions[selectionProvider] != "" {
			t.Errorf("get_ui_context still has the excluded provider: %+v", c)
		}
		if _, _, ok := c.provider(viewportProvider); !ok {
			t.Errorf("excluding one provider took the others too: %+v", c.Providers)
		}
		out, err := b.shimCLI("context")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, selectionProvider) || !strings.Contains(out, viewportProvider) {
			t.Errorf("webmcp-shim context with %s excluded:\n%s", selectionProvider, out)
		}
		if out, err := b.shimCLI("pin", selectionProvider); err == nil {
			t.Errorf("webmcp-shim pin of an excluded provider succeeded:\n%s", out)
		}
		if c := b.getUIContext(); len(c.Pinned) != 0 {
			t.Errorf("an excluded provider was pinned: %s", c.Pinned)
		}
		// The chip stays, switched off, with its pin button disabled.
		if eval[bool](t, panel, `!`+byLabel("Pin "+selectionProvider)+`.disabled`) {
			t.Errorf("the pin button of an excluded provider is enabled")
		}

		press(t, panel, include)
		waitSwitch(t, panel, include, true)
		if _, _, ok := b.getUIContext().provider(selectionProvider); !ok {
			t.Errorf("the provider included again is not in get_ui_context")
		}
	})
}

// Pin from the panel: <pinned_context> in webmcp-shim context; Unpin there
// removes it.
func TestPanelPin(t *testing.T) {
	b := start(t, native)
	_, panel, _ := b.demoWithPanel()
	pinned := `document.querySelector('[data-pin="` + selectionProvider + `"]')`
	waitPage(t, panel, `document.querySelector('[data-chip="`+selectionProvider+`"]')`)
	press(t, panel, "Pin "+selectionProvider)
	waitPage(t, panel, pinned+` && `+pinned+`.textContent.includes("CommitNavigation")`)
	out, err := b.shimCLI("context")
	if err != nil {
		t.Fatal(err)
	}
	start, end := strings.Index(out, "<pinned_context"), strings.Index(out, "</pinned_context>")
	if start < 0 || end < start || !strings.Contains(out[start:end], "CommitNavigation") {
		t.Errorf("after pinning in the panel, webmcp-shim context printed no pinned slice:\n%s", out)
	}
	// The pin's raw JSON is what get_ui_context lists in "pinned".
	press(t, panel, "Show raw JSON of pinned "+selectionProvider)
	raw := `document.querySelector('[data-raw="pin:` + selectionProvider + `"]')`
	waitPage(t, panel, `!`+raw+`.hidden`)
	var got any
	if err := json.Unmarshal([]byte(eval[string](t, panel, raw+`.querySelector("pre").textContent`)), &got); err != nil {
		t.Fatalf("the pin's raw view is not JSON: %v", err)
	}
	if c := b.getUIContext(); len(c.Pinned) != 1 {
		t.Errorf("get_ui_context pinned = %s, want the one pin", c.Pinned)
	} else if want := jsonValue(t, c.Pinned[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("the panel's raw JSON of the pin is\n%s\nget_ui_context gives\n%s", mustJSON(got), mustJSON(want))
	}
	if role, _ := axControl(t, panel, "Unpin "+selectionProvider); role != "button" {
		t.Errorf("Unpin %s is a %q, want a button", selectionProvider, role)
	}
	press(t, panel, "Unpin "+selectionProvider)
	waitPage(t, panel, `!`+pinned)
	if out, view := b.hookContext(); strings.Contains(out, "pinned_context") || len(view.Pinned) != 0 {
		t.Errorf("after Unpin in the panel, webmcp-shim context still prints pinned context:\n%s\n%+v", out, view.Pinned)
	}
}

// The side panel shows the active tab and follows it; its ambient chip
// (selection and focused element) can be excluded like a provider's.
func TestPanelSidePanel(t *testing.T) {
	b := start(t, polyfill)
	demo := b.openDemo("localhost")
	id := b.tabID(localOrigin())
	side := b.openUI("ui/panel.html?in=sidepanel")
	waitPage(t, side, fmt.Sprintf(`document.body.dataset.ready === "true" && document.body.dataset.tab === "%d"`, id))
	if eval[bool](t, side, `!document.getElementById("open-side-panel").hidden`) {
		t.Errorf("the side panel offers to open the side panel")
	}

	// The selection's chip.
	ambient := "Include selection and focused element"
	eval[any](t, demo, `(() => { const s = getSelection(); s.removeAllRanges(); const r = document.createRange(); r.selectNodeContents(document.querySelector("#details")); s.addRange(r); })()`)
	waitPage(t, side, `document.querySelector('[data-chip="ambient"] .summary')?.textContent.startsWith("Selected text")`)
	if role, checked := axControl(t, side, ambient); role != "switch" || checked != "true" {
		t.Fatalf("%q is a %q checked=%q; want a switch that is on", ambient, role, checked)
	}
	press(t, side, ambient)
	waitSwitch(t, side, ambient, false)
	if c := b.getUIContext(); c.Ambient != nil {
		t.Errorf("get_ui_context has the excluded selection: %+v", c.Ambient)
	}
	if out, view := b.hookContext(); strings.Contains(out, "selection:") || view.Ambient != nil {
		t.Errorf("webmcp-shim context has the excluded selection:\n%s", out)
	} else if view.Tab == nil || view.Tab.ID != id || !strings.Contains(out, "<ui_context>") {
		t.Errorf("webmcp-shim context is not the demo tab's (%d): tab %+v, note %q:\n%s", id, view.Tab, view.Note, out)
	}
	press(t, side, ambient)
	waitSwitch(t, side, ambient, true)
	if c := b.getUIContext(); c.Ambient == nil || c.Ambient.Selection == "" {
		t.Errorf("the selection included again is not in get_ui_context")
	}

	// Another tab comes to the front of the window: the side panel follows.
	b.openBeside(demoURL("127.0.0.1", "/"))
	b.waitTools("the second demo tab's tools", func(m map[string]*mcp.Tool) bool {
		for _, tool := range m {
			if strings.Contains(tool.Description, "127.0.0.1") {
				return true
			}
		}
		return false
	})
	other := b.tabID(fmt.Sprintf("http://127.0.0.1:%d", demoPort))
	waitPage(t, side, fmt.Sprintf(`document.body.dataset.tab === "%d"`, other))
}

// The popup's first screen (375 × 600 px) answers the three questions a
// person opens it with, without scrolling: which agents are connected; may
// they use this site, and do they ask first; what the next prompt carries
// (each chip's switch and pin, the pins). The rest, the tools first, comes
// below; nothing is wider than the popup. Screenshots in light and dark.
func TestPanelFirstScreen(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		// The demo with a slice selected, its details' text selected and,
		// from earlier, a pin.
		demo := b.openDemo("localhost")
		click(t, demo, "3")
		eval[any](t, demo, `(() => { const s = getSelection(); s.removeAllRanges(); const r = document.createRange(); r.selectNodeContents(document.querySelector("#details")); s.addRange(r); })()`)
		b.getUIContext() // the click has reached the extension
		if out, err := b.shimCLI("pin", viewportProvider); err != nil {
			t.Fatalf("webmcp-shim pin %s: %v\n%s", viewportProvider, err, out)
		}
		panel := b.openPanel(b.tabID(localOrigin()), demo)
		waitPage(t, panel, `document.querySelector('[data-chip="`+selectionProvider+`"] .summary')?.textContent.includes("CommitNavigation")`)
		waitPage(t, panel, `[...document.querySelectorAll(".agents li")].some(li => li.textContent.startsWith("e2e 1"))`)
		waitPage(t, panel, byLabel(askLabel))
		waitPage(t, panel, `document.querySelector('[data-pin="`+viewportProvider+`"]')`)
		waitPage(t, panel, `document.querySelector('[data-chip="ambient"] .summary')?.textContent.startsWith("Selected text")`)
		for _, scheme := range []string{"light", "dark"} {
			popupView(t, panel, scheme)
			// Every control that answers the three questions, and where its bottom is.
			var controls []struct {
				Name   string `json:"name"`
				Bottom int    `json:"bottom"`
			}
			names := []string{siteSwitch, askLabel, "Include " + selectionProvider, "Pin " + selectionProvider,
				"Include " + viewportProvider, "Include selection and focused element", "Unpin " + viewportProvider}
			raw := eval[string](t, panel, `(() => {
				const labelled = (l) => [...document.querySelectorAll("[aria-label]")].find(e => e.getAttribute("aria-label") === l);
				const found = [
					...[...document.querySelectorAll(".agents li")].map(li => ["agent " + li.textContent, li]),
					...`+mustJSON(names)+`.map(n => [n, labelled(n)]),
				];
				return JSON.stringify(found.map(([name, el]) => ({name, bottom: el ? Math.ceil(el.getBoundingClientRect().bottom + scrollY) : -1})));
			})()`)
			if err := json.Unmarshal([]byte(raw), &controls); err != nil {
				t.Fatal(err)
			}
			if len(controls) < 7 {
				t.Fatalf("in %s, the controls found: %+v", scheme, controls)
			}
			for _, c := range controls {
				if c.Bottom < 0 || c.Bottom > popupHeight {
					t.Errorf("in %s at %d px wide, %q ends at %d px, want it within the first %d px", scheme, popupWidth, c.Name, c.Bottom, popupHeight)
				}
			}
			if h := eval[int](t, panel, `Math.ceil(document.getElementById("tools").getBoundingClientRect().top + scrollY)`); h > popupHeight {
				t.Logf("in %s the tools start at %d px", scheme, h)
			}
			if w := eval[int](t, panel, `document.documentElement.scrollWidth`); w > popupWidth {
				t.Errorf("in %s, the panel is %d px wide at the popup's %d px", scheme, w, popupWidth)
			}
			t.Logf("in %s the whole panel is %d px long", scheme, eval[int](t, panel, `document.documentElement.scrollHeight`))
			if m == polyfill {
				t.Logf("screenshot: %s", screenshot(t, panel, scheme, screenshotDir(t), "panel-"+scheme+".png"))
			}
		}
	})
}

// jsonValue is v as generic JSON (maps, slices, float64s).
func jsonValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
