package e2e

// Helpers for the extension's panel (extension/ui/panel.html), opened as a
// tab for a given browser tab and driven by accessible names, the way a
// screen reader or a keyboard user reaches its controls.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The panel's contract names (extension/ui/site.js, context.js).
const siteSwitch = "Let local agents use this site"

// tabID returns the browser's id of the tab of origin, as list_tabs shows it.
func (b *bridge) tabID(origin string) int {
	b.t.Helper()
	var out struct {
		Tabs []struct {
			ID     int    `json:"id"`
			Origin string `json:"origin"`
		} `json:"tabs"`
	}
	res := b.call(context.Background(), "list_tabs", map[string]any{})
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		b.t.Fatalf("list_tabs returned no JSON (%v): %s", err, text(res))
	}
	for _, t := range out.Tabs {
		if t.Origin == origin {
			return t.ID
		}
	}
	b.t.Fatalf("list_tabs shows no tab of %s: %s", origin, text(res))
	return 0
}

// openPanel opens the extension's panel for tab id in a new tab, waits until
// it has shown that tab, and brings the tab front again (its window's
// active tab is the one agents get the context of).
func (b *bridge) openPanel(id int, front context.Context) context.Context {
	b.t.Helper()
	panel := b.openUI(fmt.Sprintf("ui/panel.html?tab=%d", id))
	waitPage(b.t, panel, fmt.Sprintf(`document.body.dataset.ready === "true" && document.body.dataset.tab === "%d"`, id))
	if front != nil {
		focus(b.t, front)
	}
	return panel
}

// openUI opens a page of the extension (path: "ui/options.html") as a
// background tab of the focused window, so that the tab agents get the
// context of stays the active one, and lets it keep keyboard focus behind
// that tab, as the side panel does beside the page. (chromedp's own new
// tabs get a window each, which takes the focus.)
func (b *bridge) openUI(path string) context.Context {
	b.t.Helper()
	page, cancel, err := openExtPage(b.browser, path)
	b.t.Cleanup(cancel)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := chromedp.Call(page, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		b.t.Fatalf("emulate focus in %s: %v", path, err)
	}
	return page
}

// openExtPage opens the extension's page path in a background tab of
// browser and returns it loaded. A blank tab first, then the page:
// Navigate returns once it has loaded (a tab created at the URL may still
// be about:blank when the test speaks to it, without chrome.runtime).
func openExtPage(browser context.Context, path string) (context.Context, context.CancelFunc, error) {
	url := extURL(path)
	no, yes := false, true
	res, err := chromedp.CallBrowser(browser, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: &no, Background: &yes})
	if err != nil {
		return nil, func() {}, fmt.Errorf("open %s: %w", url, err)
	}
	page, cancel := chromedp.NewContext(browser, chromedp.WithTargetID(res.TargetID))
	if err := chromedp.Do(page, chromedp.Navigate(url)); err != nil {
		return page, cancel, fmt.Errorf("open %s: %w", url, err)
	}
	return page, cancel, nil
}

// openBeside opens url as the active tab of the focused window (chromedp's
// own new tabs get a window each), as a user opens a tab beside the side
// panel.
func (b *bridge) openBeside(url string) context.Context {
	b.t.Helper()
	no := false
	// A blank tab first, then the page: chromedp attaches to a loading
	// page with a data race (see consentParsed).
	res, err := chromedp.CallBrowser(b.browser, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: &no, Background: &no})
	if err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	tab, cancel := chromedp.NewContext(b.browser, chromedp.WithTargetID(res.TargetID))
	b.t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	return tab
}

// byLabel is a JavaScript expression for the element whose accessible name
// is set by aria-label to label.
func byLabel(label string) string {
	return fmt.Sprintf(`[...document.querySelectorAll("[aria-label]")].find(e => e.getAttribute("aria-label") === %s)`, mustJSON(label))
}

// axControl finds the control named name in the panel's accessibility tree
// (the name the browser computes, as a screen reader gets it) and returns
// its role and whether it is checked ("true", "false", or "" when the
// control has no checked state). It fails the test when there is none.
func axControl(t testing.TB, panel context.Context, name string) (role, checked string) {
	t.Helper()
	res, err := chromedp.Call(panel, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("accessibility tree of the panel: %v", err)
	}
	var names []string
	for _, n := range res.Nodes {
		if n.Ignored || n.Name == nil {
			continue
		}
		var nm string
		json.Unmarshal(n.Name.Value, &nm)
		if nm == "" {
			continue
		}
		names = append(names, nm)
		if nm != name {
			continue
		}
		if n.Role != nil {
			json.Unmarshal(n.Role.Value, &role)
		}
		for _, p := range n.Properties {
			if p.Name == accessibility.PropertyNameChecked && p.Value != nil {
				var v any
				json.Unmarshal(p.Value.Value, &v)
				checked = fmt.Sprint(v)
			}
		}
		return role, checked
	}
	t.Fatalf("the panel has no control named %q; names: %s", name, strings.Join(names, " | "))
	return "", ""
}

// press activates the control named label from the keyboard: it is focused
// and Space (a switch, a button) or Enter is pressed, as a keyboard user
// would.
func press(t testing.TB, panel context.Context, label string) {
	t.Helper()
	if !eval[bool](t, panel, `(() => { const e = `+byLabel(label)+`; if (!e) return false; e.focus(); return document.activeElement === e; })()`) {
		t.Fatalf("the panel has no focusable control labelled %q", label)
	}
	if err := chromedp.Do(panel, chromedp.KeyEvent(" ")); err != nil {
		t.Fatalf("press Space on %q: %v", label, err)
	}
}

// waitSwitch waits until the switch named label is checked (on) or not.
func waitSwitch(t testing.TB, panel context.Context, label string, on bool) {
	t.Helper()
	waitPage(t, panel, fmt.Sprintf(`(() => { const e = %s; return e && !e.disabled && e.checked === %v; })()`, byLabel(label), on))
}

// screenshotDir is where screenshots go (see shotDir).
func screenshotDir(t testing.TB) string { return shotDir(t) }

// The popup's size: Chrome shows the panel at this width, and at most this
// height before it scrolls.
const popupWidth, popupHeight = 375, 600

// popupView lays the panel out at the popup's size in a colour scheme
// ("light" or "dark"), in the front so that it paints.
func popupView(t testing.TB, panel context.Context, scheme string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(panel, 20*time.Second)
	defer cancel()
	// A background tab paints no frames: bring the panel to the front first.
	focus(t, panel)
	visible := `new Promise(resolve => {
		if (document.visibilityState === "visible") return resolve(true);
		document.addEventListener("visibilitychange", () => resolve(true), {once: true});
	})`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](visible, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("waiting for the panel to be visible: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Fatalf("emulate prefers-color-scheme %s: %v", scheme, err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: popupWidth, Height: popupHeight, DeviceScaleFactor: 2}); err != nil {
		t.Fatalf("set the popup's size: %v", err)
	}
	// The media query matches once the emulation took; the width is the
	// popup's once the layout viewport has it.
	wait := fmt.Sprintf(`new Promise(resolve => {
		const ok = () => matchMedia("(prefers-color-scheme: %s)").matches && innerWidth === %d;
		if (ok()) return resolve(true);
		const check = () => { if (ok()) resolve(true); };
		matchMedia("(prefers-color-scheme: %s)").addEventListener("change", check);
		addEventListener("resize", check);
	})`, scheme, popupWidth, scheme)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](wait, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("waiting for the popup's size and prefers-color-scheme: %s in the panel: %v", scheme, err)
	}
}

// screenshot saves a PNG of what the popup shows first (its 375 × 600 px)
// in a colour scheme to dir/name.
func screenshot(t testing.TB, panel context.Context, scheme, dir, name string) string {
	t.Helper()
	popupView(t, panel, scheme)
	eval[any](t, panel, `scrollTo(0, 0)`)
	png, err := chromedp.Run(panel, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot of the panel: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
