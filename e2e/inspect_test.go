package e2e

// The page author's inspector in the panel (issue INSPECT): a tab's tool
// beside what an agent gets, and "Try NAME": a form from its inputSchema
// whose Run calls the tool once in the page, as the user. Driven by the
// accessible names "Try sum_numbers", "a", "b" and "Run", in both modes.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/dom"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// inspectPage registers sum_numbers (a + b) and records each run's input.
const inspectPage = `<!doctype html><html><head><title>Inspector test</title></head><body><script>
window.runs = [];
document.modelContext.registerTool({
  name: "sum_numbers",
  description: "Adds two numbers a and b and returns the sum.",
  inputSchema: {type: "object", properties: {a: {type: "number", description: "the first"}, b: {type: "number"}}, required: ["a", "b"]},
  execute: (input) => { window.runs.push({a: input.a, b: input.b, types: [typeof input.a, typeof input.b]}); return input.a + input.b; },
}).then(() => { document.body.dataset.ready = "true"; });
</script></body></html>`

// serveInspectPage serves inspectPage on 127.0.0.1 (allowed by default) and returns its origin.
func serveInspectPage(t testing.TB) string {
	t.Helper()
	return serveLoopback(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, inspectPage)
	})
}

// typeNamed focuses the control that the accessibility tree names name
// (role role) and types text into it from the keyboard.
func typeNamed(t testing.TB, ctx context.Context, role, name, text string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	doc, err := chromedp.Call(c, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		t.Fatalf("get the document: %v", err)
	}
	res, err := chromedp.Call(c, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{BackendNodeID: doc.Root.BackendNodeID, AccessibleName: name, Role: role})
	if err != nil {
		t.Fatalf("query the accessibility tree for %s %q: %v", role, name, err)
	}
	var node *accessibility.Node
	for _, n := range res.Nodes {
		if !n.Ignored && n.BackendDOMNodeID != 0 {
			node = n
			break
		}
	}
	if node == nil {
		t.Fatalf("the panel has no %s named %q", role, name)
	}
	obj, err := chromedp.Call(c, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node.BackendDOMNodeID})
	if err != nil {
		t.Fatalf("resolve %s %q: %v", role, name, err)
	}
	if _, err := chromedp.Call(c, cdpruntime.CallFunctionOn, cdpruntime.CallFunctionOnParams{
		FunctionDeclaration: `function() { this.focus(); this.select && this.select(); }`, ObjectID: obj.Object.ObjectID,
	}); err != nil {
		t.Fatalf("focus %s %q: %v", role, name, err)
	}
	if err := chromedp.Do(c, chromedp.KeyEvent(text)); err != nil {
		t.Fatalf("type into %s %q: %v", role, name, err)
	}
}

func TestInspectTry(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		origin := serveInspectPage(t)
		page := b.openBeside(origin + "/")
		waitPage(t, page, `document.body.dataset.ready === "true"`)
		b.waitTool("sum_numbers")
		id := b.tabID(origin)
		panel := b.openPanel(id, page)

		// The tools view: what the agent gets beside the page's tool.
		waitPage(t, panel, `[...document.querySelectorAll("button")].some(b => b.textContent === "Try sum_numbers")`)
		agentSide := `document.querySelector('[data-tool="sum_numbers"] [aria-label="What an agent gets of sum_numbers"]')`
		waitPage(t, panel, agentSide+` && `+agentSide+`.textContent.includes("The page says: Adds two numbers a and b")`)
		if got := eval[string](t, panel, agentSide+`.textContent`); !strings.Contains(got, fmt.Sprintf(`tab %d "Inspector test"]`, id)) {
			t.Errorf("the agent's side shows no provenance of tab %d:\n%s", id, got)
		}
		if n := eval[int](t, panel, `document.querySelectorAll('[data-tool="sum_numbers"] .warnings li').length`); n != 0 {
			t.Errorf("sum_numbers has %d warnings, want none: %s", n, eval[string](t, panel, `document.querySelector('[data-tool="sum_numbers"] .warnings').textContent`))
		}

		clickNamed(t, panel, "button", "Try sum_numbers")
		typeNamed(t, panel, "spinbutton", "a", "20")
		typeNamed(t, panel, "spinbutton", "b", "22")
		clickNamed(t, panel, "button", "Run")
		waitPage(t, panel, `(() => { const r = document.querySelector('[data-tool="sum_numbers"] .try-result .result-text'); return r && r.textContent === "42"; })()`)

		type run struct {
			A, B  any
			Types []string
		}
		runs := eval[[]run](t, page, `window.runs`)
		if len(runs) != 1 || runs[0].A != float64(20) || runs[0].B != float64(22) || len(runs[0].Types) != 2 || runs[0].Types[0] != "number" || runs[0].Types[1] != "number" {
			t.Fatalf("the page ran %+v; want once with the numbers {a:20, b:22}", runs)
		}
		// The activity log has it, as the user's.
		type entry struct{ Agent, Tool, Outcome string }
		log := eval[struct{ Entries []entry }](t, panel, fmt.Sprintf(`chrome.runtime.sendMessage({type: "activity.list", tabId: %d}).then(r => r.value)`, id))
		if len(log.Entries) == 0 || log.Entries[0] != (entry{"you (inspector)", "sum_numbers", "result"}) {
			t.Errorf("the activity log shows %+v; want sum_numbers run by you (inspector), with a result", log.Entries)
		}
		if m == polyfill {
			// The inspector open with its result, for the docs.
			eval[any](t, panel, `document.querySelector('[data-tool="sum_numbers"] details').open = true`)
			shoot(t, panel, "light", 420, 900, "inspector-light.png")
		}
	})
}

// In Firefox, the same as TestInspectTry through the add-on's panel (in a
// tab for the page's tab): Firefox's BiDi reaches no accessibility tree of
// an add-on's page, so the fields are found by their aria-label (the
// accessible name the Chromium test checks) and filled as typing would.
func TestFirefoxInspectTry(t *testing.T) {
	f := startFirefox(t)
	origin := serveInspectPage(t)
	f.navigate(origin + "/")
	f.waitPage(`document.body.dataset.ready === "true"`)
	f.waitTool("sum_numbers")
	id := f.tabID(origin)
	path := fmt.Sprintf("ui/panel.html?tab=%d", id)
	f.openExtPage(path)
	panel := f.findExtPage(path, nil)
	f.extEvalIn(panel, waitScript(`document.body.dataset.ready === "true"`))
	f.extClick(panel, "Try sum_numbers")
	for name, v := range map[string]string{"a": "20", "b": "22"} {
		js := fmt.Sprintf(`(() => { const e = %s; if (!e) return false; e.focus(); e.value = %q; e.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, byLabel(name), v)
		f.extEvalIn(panel, waitScript(byLabel(name)))
		if f.extEvalIn(panel, js) != "true" {
			t.Fatalf("the panel has no field labelled %q", name)
		}
	}
	f.extClick(panel, "Run")
	f.extEvalIn(panel, waitScript(`(() => { const r = document.querySelector('[data-tool="sum_numbers"] .try-result .result-text'); return r && r.textContent === "42"; })()`))
	var runs []struct {
		A, B  any
		Types []string
	}
	if err := json.Unmarshal([]byte(f.evalString(f.context, `JSON.stringify(window.runs)`)), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].A != float64(20) || runs[0].B != float64(22) || runs[0].Types[0] != "number" || runs[0].Types[1] != "number" {
		t.Fatalf("the page ran %+v; want once with the numbers {a:20, b:22}", runs)
	}
}
