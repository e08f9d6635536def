package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

const (
	selectionProvider = "trace.Timeline#selection"
	viewportProvider  = "trace.Timeline#viewport"
	contextURI        = "webmcp://ui-context"
)

// uiContext is what get_ui_context returns.
type uiContext struct {
	Tab *struct {
		ID    int    `json:"id"`
		URL   string `json:"url"`
		Title string `json:"title"`
	} `json:"tab"`
	Providers []struct {
		ID      string          `json:"id"`
		Summary string          `json:"summary"`
		Data    json.RawMessage `json:"data"`
	} `json:"providers"`
	Notes   []json.RawMessage `json:"notes"`
	Ambient *struct {
		Selection string `json:"selection"`
	} `json:"ambient"`
	Pinned       []json.RawMessage `json:"pinned"`
	Descriptions map[string]string `json:"descriptions"`
}

func (c *uiContext) provider(id string) (summary string, data string, ok bool) {
	for _, p := range c.Providers {
		if p.ID == id {
			return p.Summary, string(p.Data), true
		}
	}
	return "", "", false
}

// getUIContext calls get_ui_context.
func (b *bridge) getUIContext() *uiContext {
	b.t.Helper()
	res := b.call(context.Background(), "get_ui_context", map[string]any{})
	if res.IsError {
		b.t.Fatalf("get_ui_context: %s", text(res))
	}
	var c uiContext
	if err := json.Unmarshal([]byte(text(res)), &c); err != nil {
		b.t.Fatalf("get_ui_context returned no JSON (%v): %s", err, text(res))
	}
	return &c
}

// hookContext runs webmcp-shim context, as a prompt hook does, and
// webmcp-shim context --json (--wait 2s: a hang guard), and returns the
// block it prints (often nothing) and the view behind it. It fails the
// test when either command fails, the view is not JSON, or the command
// reached no browser, so that a check of what the block lacks cannot pass
// on a command that printed nothing.
func (b *bridge) hookContext() (block string, view *uicontext.View) {
	b.t.Helper()
	block, err := b.shimCLI("context", "--wait", "2s")
	if err != nil {
		b.t.Fatalf("webmcp-shim context: %v\n%s", err, block)
	}
	raw, err := b.shimCLI("context", "--json", "--wait", "2s")
	if err != nil {
		b.t.Fatalf("webmcp-shim context --json: %v\n%s", err, raw)
	}
	view = new(uicontext.View)
	if err := json.Unmarshal([]byte(raw), view); err != nil {
		b.t.Fatalf("webmcp-shim context --json printed no view (%v):\n%s", err, raw)
	}
	if view.Note == uicontext.NoteNoBrowser {
		b.t.Fatalf("webmcp-shim context reached no browser:\n%s", raw)
	}
	return block, view
}

// focus makes tab the active tab of its window, the one whose context the
// agent gets.
func focus(t testing.TB, tab context.Context) {
	t.Helper()
	if _, err := chromedp.Call(tab, page.BringToFront, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
}

// openDemo opens the demo app on an allowed origin, makes it the focused tab
// and waits for its tools.
func (b *bridge) openDemo(host string) context.Context {
	b.t.Helper()
	tab, _ := b.open(demoURL(host, "/"))
	focus(b.t, tab)
	eval[any](b.t, tab, `window.demo.ready`)
	b.waitTool("select_slice")
	return tab
}

// click clicks a slice as a user would (real input events).
func click(t testing.TB, tab context.Context, id string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`.slice[data-id="`+id+`"]`))); err != nil {
		t.Fatalf("click slice %s: %v", id, err)
	}
}

// A page provider's summary and data after a click, and the text selection.
func TestContextAfterClick(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := b.openDemo("localhost")
		click(t, tab, "3")

		c := b.getUIContext()
		if c.Tab == nil || !strings.Contains(c.Tab.URL, "localhost") {
			t.Errorf("get_ui_context tab = %+v, want the demo tab", c.Tab)
		}
		summary, data, ok := c.provider(selectionProvider)
		if !ok || !strings.Contains(summary, "CommitNavigation") || !strings.Contains(data, `"id":3`) {
			t.Errorf("selection provider = %q %s (present %v); want slice 3 CommitNavigation", summary, data, ok)
		}
		if _, _, ok := c.provider(viewportProvider); !ok {
			t.Errorf("viewport provider missing: %+v", c.Providers)
		}
		if c.Descriptions[selectionProvider] == "" {
			t.Errorf("no description for %s: %v", selectionProvider, c.Descriptions)
		}

		// Select some text in the details panel.
		eval[any](t, tab, `(() => { const s = getSelection(); s.removeAllRanges(); const r = document.createRange(); r.selectNodeContents(document.querySelector("#details")); s.addRange(r); })()`)
		c = b.getUIContext()
		if c.Ambient == nil || !strings.Contains(c.Ambient.Selection, "CommitNavigation") {
			t.Errorf("ambient selection = %+v; want the selected details text", c.Ambient)
		}
	})
}

// A subscribed agent is told when the context changes after a click.
func TestContextResourceUpdated(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := b.openDemo("localhost")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := b.client.Subscribe(ctx, &mcp.SubscribeParams{URI: contextURI}); err != nil {
			t.Fatalf("subscribe to %s: %v", contextURI, err)
		}
		click(t, tab, "5")
		for {
			res, err := b.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: contextURI})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) > 0 && strings.Contains(res.Contents[0].Text, `"id":5`) {
				break
			}
			select {
			case uri := <-b.updated:
				if uri != contextURI {
					t.Errorf("resources/updated for %q, want %q", uri, contextURI)
				}
			case <-ctx.Done():
				t.Fatalf("no resources/updated with slice 5 selected; last read: %+v", res.Contents)
			}
		}
	})
}

// webmcp-shim context prints the block for a prompt hook; --hook claude
// wraps it the way Claude Code's UserPromptSubmit hook expects.
func TestContextCLI(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := b.openDemo("localhost")
		click(t, tab, "3")
		b.getUIContext() // the click has reached the extension

		out, err := b.shimCLI("context")
		if err != nil {
			t.Fatalf("webmcp-shim context: %v", err)
		}
		if !strings.HasPrefix(out, "<ui_context>") || !strings.Contains(out, "</ui_context>") || !strings.Contains(out, "CommitNavigation") {
			t.Errorf("webmcp-shim context printed:\n%s", out)
		}
		if len(out) > 1024 {
			t.Errorf("the demo app's <ui_context> is %d bytes, want under 1 KiB:\n%s", len(out), out)
		}
		t.Logf("webmcp-shim context:\n%s", out)

		out, err = b.shimCLI("context", "--hook", "claude")
		if err != nil {
			t.Fatalf("webmcp-shim context --hook claude: %v", err)
		}
		var hook struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &hook); err != nil {
			t.Fatalf("--hook claude printed no JSON (%v):\n%s", err, out)
		}
		if hook.HookSpecificOutput.HookEventName != "UserPromptSubmit" || !strings.Contains(hook.HookSpecificOutput.AdditionalContext, "<ui_context>") {
			t.Errorf("--hook claude = %+v", hook)
		}
	})
}

// A provider vanishes when the page aborts it or navigates away; a throwing
// provider is left out with a note and the others still work.
func TestProviderLifecycle(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := b.openDemo("localhost")
		click(t, tab, "3")

		eval[any](t, tab, `window.demo.registerBrokenProvider()`)
		c := b.getUIContext()
		if _, _, ok := c.provider(selectionProvider); !ok {
			t.Errorf("a throwing provider broke the others: %+v", c.Providers)
		}
		notes, _ := json.Marshal(c.Notes)
		if !strings.Contains(string(notes), "test.Broken") || !strings.Contains(string(notes), "provider exploded") {
			t.Errorf("notes = %s; want test.Broken left out with its error", notes)
		}

		eval[any](t, tab, `window.demo.unregisterProvider("`+viewportProvider+`")`)
		c = b.getUIContext()
		if _, _, ok := c.provider(viewportProvider); ok {
			t.Errorf("the aborted viewport provider is still listed")
		}

		if err := navigate(tab, demoURL("localhost", "/iframe.html")); err != nil {
			t.Fatal(err)
		}
		b.waitTools("the navigation", func(m map[string]*mcp.Tool) bool { return m["select_slice"] == nil })
		c = b.getUIContext()
		if _, _, ok := c.provider(selectionProvider); ok {
			t.Errorf("the selection provider outlived its page: %+v", c.Providers)
		}
	})
}

// A pin survives navigation; unpin removes it.
func TestPinnedContext(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := b.openDemo("localhost")
		click(t, tab, "3")
		b.getUIContext()

		if out, err := b.shimCLI("pin", selectionProvider); err != nil {
			t.Fatalf("webmcp-shim pin: %v\n%s", err, out)
		}
		if err := navigate(tab, demoURL("localhost", "/iframe.html")); err != nil {
			t.Fatal(err)
		}
		b.waitTools("the navigation", func(m map[string]*mcp.Tool) bool { return m["select_slice"] == nil })

		out, err := b.shimCLI("context")
		if err != nil {
			t.Fatal(err)
		}
		start, end := strings.Index(out, "<pinned_context"), strings.Index(out, "</pinned_context>")
		if start < 0 || end < start || !strings.Contains(out[start:end], "CommitNavigation") {
			t.Errorf("after navigating away, webmcp-shim context printed no pinned slice:\n%s", out)
		}
		if c := b.getUIContext(); len(c.Pinned) != 1 {
			t.Errorf("get_ui_context pinned = %d items, want 1", len(c.Pinned))
		}

		if out, err := b.shimCLI("unpin", selectionProvider); err != nil {
			t.Fatalf("webmcp-shim unpin: %v\n%s", err, out)
		}
		out, view := b.hookContext()
		if strings.Contains(out, "pinned_context") || len(view.Pinned) != 0 {
			t.Errorf("after unpin, webmcp-shim context still prints pinned context:\n%s\n%+v", out, view.Pinned)
		}
	})
}

// A site outside the allow list contributes no context.
func TestBlockedSiteContext(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.openDemo("localhost")
		blocked, _ := b.open(blockedOrigin + "/")
		focus(t, blocked)
		eval[bool](t, blocked, `window.demo.ready.then(() => true, () => false)`) // polyfill mode: no WebMCP there
		click(t, blocked, "3")

		res := b.call(context.Background(), "get_ui_context", map[string]any{})
		if strings.Contains(text(res), "CommitNavigation") || strings.Contains(text(res), "127.0.0.2") {
			t.Errorf("get_ui_context leaks the blocked site:\n%s", text(res))
		}
		out, err := b.shimCLI("context")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "CommitNavigation") || strings.Contains(out, "127.0.0.2") {
			t.Errorf("webmcp-shim context leaks the blocked site:\n%s", out)
		}
	})
}
