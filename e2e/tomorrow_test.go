package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tomorrowJS turns Chromium 156's own WebMCP into a stand-in for the
// browsers after it, before any other script of the page runs (the
// extension's main-world script included): getTools() returns Tool
// interface objects (fields as prototype getters, so JSON.stringify and
// spread copy nothing), "source" instead of "window", null for a missing
// inputSchema, outputSchema or annotations. It also lists one tool of its
// own, injected_tool, that no script registered: only its "source" says it
// is this window's, so the bridge lists it only if it reads "source".
// window.__tomorrowCalls counts the calls of the stand-in's getTools and
// executeTool (the page itself calls neither: they are the bridge's).
const tomorrowJS = `(() => {
  if (typeof ModelContext !== 'function') return;
  const P = ModelContext.prototype;
  const getTools = P.getTools, executeTool = P.executeTool;
  class Tool {
    #d;
    constructor(d) { this.#d = d; }
    get name() { return this.#d.name; }
    get title() { return this.#d.title; }
    get description() { return this.#d.description; }
    get inputSchema() { return this.#d.inputSchema ?? null; }
    get outputSchema() { return this.#d.outputSchema ?? null; }
    get annotations() { return this.#d.annotations ?? null; }
    get origin() { return this.#d.origin; }
    get source() { return this.#d.window; }
  }
  const originals = new WeakMap();
  const injected = new Tool({ name: 'injected_tool', title: '', description: 'Known by its source alone.', origin: location.origin, window });
  window.__tomorrowCalls = { getTools: 0, executeTool: 0 };
  P.getTools = async function (...args) {
    window.__tomorrowCalls.getTools++;
    const list = await getTools.apply(this, args);
    return [...list.map((t) => {
      const o = new Tool({ ...t });
      originals.set(o, t);
      return o;
    }), injected];
  };
  P.executeTool = function (tool, input, options) {
    window.__tomorrowCalls.executeTool++;
    if (tool === injected) return Promise.resolve(JSON.stringify({ ran: 'injected_tool' }));
    return executeTool.call(this, originals.get(tool) || tool, input, options);
  };
  window.__tomorrow = JSON.stringify(new Tool({ name: 'x' })) === '{}';
})();`

// Tomorrow's browser, stood in for by Chromium 156 with tomorrowJS: the
// bridge reads every field of a Tool object by name, takes "source" for
// "window" and null schemas as none; tools, form tools and calls work as
// before, and a call that navigates answers with where it led.
func TestTomorrowsBrowserStandIn(t *testing.T) {
	b := start(t, native)
	tab, cancel := chromedp.NewContext(b.browser)
	t.Cleanup(cancel)
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: tomorrowJS}); err != nil {
		t.Fatalf("add the stand-in: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(demoURL("localhost", ordersPath))); err != nil {
		t.Fatalf("open the orders page: %v", err)
	}
	if !eval[bool](t, tab, `window.__tomorrow === true && window.orders.ready.then(() => true)`) {
		t.Fatalf("the stand-in did not run first")
	}
	tools := b.waitTools("the orders page's tools from Tool objects", func(m map[string]*mcp.Tool) bool {
		return m["add_note"] != nil && m["order_stats"] != nil && m["cancel_order"] != nil && m["injected_tool"] != nil
	})
	if res := b.call(context.Background(), "injected_tool", map[string]any{}); res.IsError || !strings.Contains(text(res), `"ran":"injected_tool"`) {
		t.Errorf("injected_tool = %q (isError %v)", text(res), res.IsError)
	}
	if s := schemaOf(t, tools["add_note"].InputSchema); s["properties"] == nil {
		t.Errorf("add_note inputSchema = %v, want the form's, read from the Tool object", s)
	}
	if !strings.Contains(tools["cancel_order"].Description, "[CONSEQUENTIAL]") {
		t.Errorf("cancel_order = %q, want its annotations read from the Tool object", tools["cancel_order"].Description)
	}
	if res := b.call(context.Background(), "add_note", map[string]any{"order": 2, "text": "x"}); res.IsError || !strings.Contains(text(res), `"order":2`) {
		t.Errorf("add_note through a Tool object = %q (isError %v)", text(res), res.IsError)
	}
	if n := eval[int](t, tab, `window.__tomorrowCalls.getTools`); n == 0 {
		t.Errorf("the bridge never called the stand-in's getTools: it ran after the bridge's script")
	}
	if n := eval[int](t, tab, `window.__tomorrowCalls.executeTool`); n < 2 {
		t.Errorf("the stand-in's executeTool ran %d times, want the bridge's two calls", n)
	}
	want := "[]\nTool search_orders ran and navigated its tab to " + demoURL("localhost", ordersPath+"?q=y")
	if res := b.call(context.Background(), "search_orders", map[string]any{"q": "y"}); res.IsError || !strings.HasPrefix(text(res), want) || res.Meta["dev.webmcp/navigated"] == nil {
		t.Errorf("search_orders = %q (isError %v, _meta %v), want %q… with _meta dev.webmcp/navigated", text(res), res.IsError, res.Meta, want)
	}
}
