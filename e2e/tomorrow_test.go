package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tomorrowJS turns Chromium 156's own WebMCP, as the extension's isolated
// world sees it (where the bridge lists and calls the tools), into a
// stand-in for the browsers after it, before the extension's own script
// there runs: getTools() returns Tool interface objects (fields as
// prototype getters, so JSON.stringify and spread copy nothing), "source"
// instead of "window", null for a missing inputSchema, outputSchema or
// annotations. It also lists one tool of its own, injected_tool, that no
// script registered: only its "source" says it is this window's, so the
// bridge lists it only if it reads "source". The stand-in counts the calls
// of its getTools and executeTool (the page itself calls neither: they are
// the bridge's) in data-tomorrow-* attributes of the document element,
// which the page's world sees.
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
  const counts = { getTools: 0, executeTool: 0 };
  const faithful = JSON.stringify(new Tool({ name: 'x' })) === '{}';
  const count = (what) => {
    counts[what]++;
    const el = document.documentElement;
    if (!el) return;
    el.setAttribute('data-tomorrow-' + what.toLowerCase(), String(counts[what]));
    el.setAttribute('data-tomorrow', String(faithful));
  };
  P.getTools = async function (...args) {
    count('getTools');
    const list = await getTools.apply(this, args);
    return [...list.map((t) => {
      const o = new Tool({ ...t });
      originals.set(o, t);
      return o;
    }), injected];
  };
  P.executeTool = function (tool, input, options) {
    count('executeTool');
    if (tool === injected) return Promise.resolve(JSON.stringify({ ran: 'injected_tool' }));
    return executeTool.call(this, originals.get(tool) || tool, input, options);
  };
})();`

func TestTomorrowsBrowserStandIn(t *testing.T) {
	b := start(t, native, withIsolatedPrefix(tomorrowJS))
	tab, cancel := chromedp.NewContext(b.browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(demoURL("localhost", ordersPath))); err != nil {
		t.Fatalf("open the orders page: %v", err)
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
	if eval[string](t, tab, `document.documentElement.dataset.tomorrow`) != "true" {
		t.Errorf("the stand-in's Tool objects are not what Chrome 160's are: JSON.stringify copies their fields")
	}
	if n := eval[int](t, tab, `+(document.documentElement.dataset.tomorrowGettools || 0)`); n == 0 {
		t.Errorf("the bridge never called the stand-in's getTools: it ran after the bridge's script")
	}
	if n := eval[int](t, tab, `+(document.documentElement.dataset.tomorrowExecutetool || 0)`); n < 2 {
		t.Errorf("the stand-in's executeTool ran %d times, want the bridge's two calls", n)
	}
	want := "[]\nTool search_orders ran and navigated its tab to " + demoURL("localhost", ordersPath+"?q=y")
	if res := b.call(context.Background(), "search_orders", map[string]any{"q": "y"}); res.IsError || !strings.HasPrefix(text(res), want) || res.Meta["dev.webmcp/navigated"] == nil {
		t.Errorf("search_orders = %q (isError %v, _meta %v), want %q… with _meta dev.webmcp/navigated", text(res), res.IsError, res.Meta, want)
	}
}
