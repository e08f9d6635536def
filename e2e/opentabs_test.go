package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tab of a site that was open before the site was allowed (issue USER2
// 3): the person allows the site with "Allow another site" on the options
// page, and, where the browser has its own WebMCP, the open tab's tools
// reach the agent without a reload (worker/opentabs.js injects the
// isolated-world relay); a call runs in that very document; the field says
// that the open tab has the bridge now; the page hears nothing of it (no
// handover message, no document.modelContext of the extension's).
func TestAllowSiteOpenTabNative(t *testing.T) {
	b := start(t, native)
	tab := b.openBeside(blockedOrigin + "/")
	eval[bool](t, tab, `window.demo.ready.then(() => true, () => false)`)
	// What the page would see of the bridge: a message to its window, and
	// this document staying the same one (no reload).
	eval[bool](t, tab, `(window.heard = [], window.addEventListener("message", (e) => window.heard.push(Object.keys(e.data || {}).join(",")), true), window.sameDocument = true)`)

	fromBlocked := func(m map[string]*mcp.Tool) bool {
		for _, tool := range m {
			if strings.Contains(tool.Description, "127.0.0.2") {
				return true
			}
		}
		return false
	}
	if _, msg := allowInOptions(t, b, blockedOrigin); msg != "Agents may now use "+blockedOrigin+". Its open tab has the bridge now." {
		t.Errorf("the field says %q; want that the site is allowed and its open tab has the bridge now", msg)
	}
	tools := b.waitTools("the open tab's tools, without a reload", fromBlocked)
	if !eval[bool](t, tab, `window.sameDocument === true`) {
		t.Fatalf("the open tab was reloaded; want the relay injected into it")
	}
	var echo string
	for name, tool := range tools {
		if strings.HasPrefix(name, "echo") && strings.Contains(tool.Description, "127.0.0.2") {
			echo = name
		}
	}
	if echo == "" {
		t.Fatalf("no echo tool of %s among %v", blockedOrigin, sortedKeys(tools))
	}
	res := b.call(context.Background(), echo, map[string]any{"text": "late but here"})
	if res.IsError || !strings.Contains(text(res), "late but here") {
		t.Errorf("%s in the open tab answered %q (error %v)", echo, text(res), res.IsError)
	}
	if heard := eval[[]any](t, tab, `window.heard`); len(heard) != 0 {
		t.Errorf("the page heard messages of the bridge: %v", heard)
	}
	if !eval[bool](t, tab, `window.sameDocument === true`) {
		t.Errorf("the open tab was reloaded")
	}
}

// Without the browser's own WebMCP the polyfill must come before the
// page's scripts: the field says that the open tab gets the bridge when it
// loads again and offers the reload, which brings its tools.
func TestAllowSiteOpenTabPolyfill(t *testing.T) {
	b := start(t, polyfill)
	tab := b.openBeside(blockedOrigin + "/")
	eval[bool](t, tab, `window.demo.ready.then(() => true, () => false)`)
	options, msg := allowInOptions(t, b, blockedOrigin)
	if msg != "Agents may now use "+blockedOrigin+". Its open tab gets the bridge when it loads again: reload it." {
		t.Errorf("the field says %q; want that the open tab gets the bridge when it loads again", msg)
	}
	if eval[bool](t, tab, `"modelContext" in document`) {
		t.Fatalf("the open tab got document.modelContext late")
	}
	reload := "Reload the open tabs of " + blockedOrigin
	waitPage(t, options, `[...document.querySelectorAll("button")].some((e) => e.textContent === `+mustJSON(reload)+`)`)
	eval[bool](t, options, `([...document.querySelectorAll("button")].find((e) => e.textContent === `+mustJSON(reload)+`).focus(), true)`)
	if err := chromedp.Do(options, chromedp.KeyEvent(" ")); err != nil {
		t.Fatalf("press %s: %v", reload, err)
	}
	b.waitTools("the reloaded tab's tools", func(m map[string]*mcp.Tool) bool {
		for _, tool := range m {
			if strings.Contains(tool.Description, "127.0.0.2") {
				return true
			}
		}
		return false
	})
	waitPage(t, options, `document.querySelector("#add-site-msg").textContent === "Reloaded the open tab of `+blockedOrigin+`: it has the bridge now."`)
}

// allowInOptions allows origin in the options page's "Allow another site"
// field, as the user does, and returns the options page and what the
// field then says.
func allowInOptions(t *testing.T, b *bridge, origin string) (options context.Context, msg string) {
	t.Helper()
	options = b.openUI("ui/options.html")
	waitPage(t, options, `document.querySelector("#add-site-input") !== null`)
	typeNamed(t, options, "textbox", "Allow another site", origin)
	if err := chromedp.Do(options, chromedp.KeyEvent("\r")); err != nil {
		t.Fatalf("press Enter in Allow another site: %v", err)
	}
	waitPage(t, options, `document.querySelector("#add-site-msg").textContent.startsWith("Agents may now use")`)
	return options, eval[string](t, options, `document.querySelector("#add-site-msg").textContent`)
}
