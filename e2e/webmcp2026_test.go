package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WebMCP as it stands in late 2026, in real Chromium, in both modes, on the
// demo's orders page (demo/site/orders.html): declarative form tools,
// consequentialHint, debugging tools, outputSchema and structured results,
// and a call that navigates the page.

const ordersPath = "/orders.html"

// openOrders opens the orders page and waits for its tools.
func openOrders(t *testing.T, b *bridge, m mode) context.Context {
	t.Helper()
	tab, _ := b.open(demoURL("localhost", ordersPath))
	if got := eval[string](t, tab, `window.orders.ready.then(() => window.orders.mode)`); got != string(m) {
		t.Fatalf("the page runs on %q WebMCP, want %q", got, m)
	}
	return tab
}

// activeSelectors are the selectors of a running form tool and its submit
// button: the draft's pseudo-classes natively, the attributes that stand in
// for them in the polyfill.
func activeSelectors(m mode) (form, submit string) {
	if m == native {
		return ":tool-form-active", ":tool-submit-active"
	}
	return "[data-tool-form-active]", "[data-tool-submit-active]"
}

// schemaOf decodes a tool's inputSchema or outputSchema.
func schemaOf(t *testing.T, s any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(s)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return m
}

// A declarative form tool is listed with the schema its form gives, and an
// agent's call fills the form, submits it (toolautosubmit) with
// agentInvoked, and returns what the page passed to respondWith.
func TestDeclarativeFormTool(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		tool := b.waitTool("add_note")
		if !strings.Contains(tool.Description, "Adds a note to an order") {
			t.Errorf("add_note description = %q", tool.Description)
		}
		s := schemaOf(t, tool.InputSchema)
		props, _ := s["properties"].(map[string]any)
		noteText, _ := props["text"].(map[string]any)
		order, _ := props["order"].(map[string]any)
		urgent, _ := props["urgent"].(map[string]any)
		channel, _ := props["channel"].(map[string]any)
		if noteText["type"] != "string" || noteText["description"] != "The note's text, one line." {
			t.Errorf("text = %v, want a string with the toolparamdescription", noteText)
		}
		if order["type"] != "number" || order["minimum"] != 1.0 || order["maximum"] != 999.0 || order["description"] != "Order number" {
			t.Errorf("order = %v, want a number 1..999 described by its label", order)
		}
		if urgent["type"] != "boolean" {
			t.Errorf("urgent = %v, want a boolean", urgent)
		}
		if enum, _ := channel["enum"].([]any); len(enum) != 2 || enum[0] != "email" || enum[1] != "phone" {
			t.Errorf("channel = %v, want enum [email phone]", channel)
		}
		if req, _ := s["required"].([]any); len(req) != 2 || req[0] != "order" || req[1] != "text" {
			t.Errorf("required = %v, want [order text]", s["required"])
		}

		res := b.call(context.Background(), "add_note", addNoteArgs)
		if res.IsError {
			t.Fatalf("add_note: %s", text(res))
		}
		var got addNoteResult
		if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
			t.Fatalf("add_note result %q is not the page's respondWith value: %v", text(res), err)
		}
		if !got.ringsBack() {
			t.Errorf("add_note = %+v, want order 7's note as the page answered it", got)
		}
		if sub := eval[string](t, tab, `JSON.stringify(window.orders.submits)`); sub != `[{"form":"add_note","agentInvoked":true}]` {
			t.Errorf("submit events seen by the page = %s, want one add_note with agentInvoked", sub)
		}
		formSel, _ := activeSelectors(m)
		if active := eval[bool](t, tab, `document.querySelector('#note-form').matches('`+formSel+`')`); active {
			t.Errorf("the form is still marked active after respondWith settled")
		}
	})
}

// A form without toolautosubmit is filled and waits for the user: in both
// modes (the browser's own, and the polyfill as it does) the call stays
// open until the user submits, and answers with the page's respondWith;
// the form is no longer marked active after that.
func TestDeclarativeFormWaitsForUser(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		b.waitTool("place_order")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "place_order", Arguments: map[string]any{"item": "tea", "quantity": 2}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			done <- res
		}()
		waitPage(t, tab, `document.getElementById('order-item').value === 'tea' && document.getElementById('order-qty').value === '2'`)
		formSel, submitSel := activeSelectors(m)
		active := `document.querySelector('#order-form').matches('` + formSel + `') && document.querySelector('#order-form button').matches('` + submitSel + `')`
		if !eval[bool](t, tab, active) {
			t.Errorf("the filled form and its submit button are not marked active")
		}
		select {
		case res := <-done:
			t.Fatalf("place_order answered before the user submitted the form: %q (isError %v)", text(res), res.IsError)
		default:
		}
		if n := eval[int](t, tab, `window.orders.placed.length`); n != 0 {
			t.Errorf("the order was placed before the user submitted it")
		}
		// The user checks the form and submits it.
		eval[bool](t, tab, `document.querySelector('#order-form button').click(), true`)
		waitPage(t, tab, `window.orders.placed.length === 1`)
		res := <-done
		if res.IsError || !strings.Contains(text(res), `"item":"tea"`) {
			t.Errorf("place_order after the user submitted = %q (isError %v), want the page's respondWith value", text(res), res.IsError)
		}
		waitPage(t, tab, `!document.querySelector('#order-form').matches('`+formSel+`')`)
	})
}

// A call whose form submission navigates the page ran, and its answer is
// the new page: the result (not an error) says so in one sentence, with
// the new page's URL, title and tools, at once rather than at a timeout.
func TestCallThatNavigates(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		b.waitTool("search_orders")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res := b.call(ctx, "search_orders", map[string]any{"q": "tea"})
		if ctx.Err() != nil {
			t.Fatalf("search_orders ran into the test's deadline")
		}
		want := "[]\nTool search_orders ran and navigated its tab to " + demoURL("localhost", ordersPath+"?q=tea") + ` ("Orders · WebMCP bridge demo"), which offers the tools `
		got := text(res)
		if res.IsError || !strings.HasPrefix(got, want) || strings.Count(got, "navigated") != 1 {
			t.Errorf("search_orders = %q (isError %v), want a result that begins %q", got, res.IsError, want)
		}
		for _, tool := range []string{"add_note", "order_stats", "search_orders"} {
			if !strings.Contains(got, tool) {
				t.Errorf("search_orders = %q: the new page's tool %s is not named", got, tool)
			}
		}
		nav, _ := res.Meta["dev.webmcp/navigated"].(map[string]any)
		if nav["url"] != demoURL("localhost", ordersPath+"?q=tea") || nav["settled"] != true {
			t.Errorf("_meta dev.webmcp/navigated = %v, want the new page, settled", res.Meta["dev.webmcp/navigated"])
		}
		waitPage(t, tab, `location.search === '?q=tea'`)
	})
}

// A tool with an outputSchema is listed with it, and its result arrives as
// structuredContent; one that does not match is an error naming the field.
// Chromium 156 drops outputSchema from its own tools: there the bridge
// takes the page's own from registerTool (a stand-in for browsers that
// keep it).
func TestOutputSchemaAndStructuredContent(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		// The page's own tool and its form's may come in two reports.
		tool := b.waitTools("order_stats and the form tool add_note", func(m map[string]*mcp.Tool) bool {
			return m["order_stats"] != nil && m["add_note"] != nil
		})["order_stats"]
		out := schemaOf(t, tool.OutputSchema)
		if req, _ := out["required"].([]any); len(req) != 2 {
			t.Fatalf("order_stats outputSchema = %v, want the page's", out)
		}
		b.call(context.Background(), "add_note", map[string]any{"order": 3, "text": "a"})
		res := b.call(context.Background(), "order_stats", map[string]any{})
		var got struct{ Orders, Notes int }
		raw, _ := json.Marshal(res.StructuredContent)
		if res.IsError || json.Unmarshal(raw, &got) != nil || got.Orders != 1 || got.Notes != 1 {
			t.Errorf("order_stats = %q, structuredContent %s (isError %v), want {orders:1, notes:1}", text(res), raw, res.IsError)
		}
		if !strings.Contains(text(res), `"orders":1`) {
			t.Errorf("order_stats text = %q, want the JSON alongside", text(res))
		}
		eval[bool](t, tab, `window.orders.badStats = true`)
		res = b.call(context.Background(), "order_stats", map[string]any{})
		if !res.IsError || !strings.Contains(text(res), `field "orders"`) {
			t.Errorf("a result off its schema = %q (isError %v), want an error naming field orders", text(res), res.IsError)
		}
	})
}

// consequentialHint is destructiveHint at the client and said in the
// provenance; debugging tools are listed only when the shim is told to.
func TestConsequentialAndDebugging(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		openOrders(t, b, m)
		tools := b.waitTools("the orders page's imperative tools", func(m map[string]*mcp.Tool) bool {
			return m["cancel_order"] != nil && m["order_stats"] != nil
		})
		c := tools["cancel_order"]
		if a := c.Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint {
			t.Errorf("cancel_order annotations = %+v, want destructiveHint", a)
		}
		if !strings.Contains(c.Description, "] [CONSEQUENTIAL] The page says: ") || c.Meta["dev.webmcp/consequentialHint"] != true {
			t.Errorf("cancel_order = %q, _meta %v; want the consequential mark", c.Description, c.Meta)
		}
		if a := tools["order_stats"].Annotations; a == nil || !a.ReadOnlyHint || strings.Contains(tools["order_stats"].Description, "[CONSEQUENTIAL]") || !strings.Contains(tools["order_stats"].Description, "] [READ-ONLY] ") {
			t.Errorf("order_stats = %+v, %q: want read-only, not consequential", a, tools["order_stats"].Description)
		}
		if tools["dump_orders"] != nil {
			t.Errorf("the debugging tool dump_orders is listed without the setting")
		}

		t.Setenv("WEBMCP_DEBUGGING_TOOLS", "1")
		dbg := b.connectShim()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for {
			res, err := dbg.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("list tools with WEBMCP_DEBUGGING_TOOLS=1: %v", err)
			}
			found := false
			for _, tl := range res.Tools {
				found = found || tl.Name == "dump_orders"
			}
			if found {
				break
			}
			// The new shim lists the browser's tools once its host's
			// state arrives, and says so with list_changed.
			select {
			case <-ctx.Done():
				t.Fatalf("dump_orders is not listed with WEBMCP_DEBUGGING_TOOLS=1")
			case <-b.changed:
			}
		}
	})
}

// exposedTo shares a tool with other origins' documents in the page's own
// tree; it neither hides the tool from agents (the bridge acts as the
// browser's own agent, which the draft's observation gives every tool of
// the document) nor widens who sees it: it is listed as its own origin's
// tool, under the user's site access. An origin that is not potentially
// trustworthy is a SecurityError in both modes.
func TestExposedTo(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		got := eval[string](t, tab, `document.modelContext.registerTool({name: 'shared_tool', description: 'Shared with a partner frame.', execute: () => 'shared'},
			{exposedTo: ['https://partner.example']}).then(() => 'ok', (e) => e.name)`)
		if got != "ok" {
			t.Fatalf("registerTool with exposedTo [https://partner.example]: %s", got)
		}
		got = eval[string](t, tab, `document.modelContext.registerTool({name: 'insecure_share', description: 'd', execute: () => 1},
			{exposedTo: ['http://partner.example']}).then(() => 'ok', (e) => e.name)`)
		if got != "SecurityError" {
			t.Errorf("registerTool with exposedTo [http://partner.example] = %s, want SecurityError", got)
		}
		tool := b.waitTool("shared_tool")
		if !strings.HasPrefix(tool.Description, "[localhost:") {
			t.Errorf("shared_tool description = %q, want its own origin's provenance", tool.Description)
		}
		if res := b.call(context.Background(), "shared_tool", map[string]any{}); res.IsError || text(res) != "shared" {
			t.Errorf("shared_tool = %q (isError %v)", text(res), res.IsError)
		}
		if b.hasTool("insecure_share") {
			t.Errorf("a tool whose registration failed is listed")
		}
	})
}

// hasTool reports whether the agent lists a tool named name now.
func (b *bridge) hasTool(name string) bool {
	res, err := b.client.ListTools(context.Background(), nil)
	if err != nil {
		b.t.Fatalf("list tools: %v", err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}

// Form tools follow the DOM: a form added is a tool, renamed it is another,
// removed it is gone; the agent hears of each through list_changed.
func TestFormToolsFollowTheDOM(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab := openOrders(t, b, m)
		b.waitTool("add_note")
		eval[bool](t, tab, `(() => {
			const f = document.createElement('form');
			f.id = 'late-form';
			f.setAttribute('toolname', 'late_form');
			f.setAttribute('tooldescription', 'A form added after load.');
			f.innerHTML = '<input name="a" required><button>Go</button>';
			document.body.append(f);
			return true;
		})()`)
		tool := b.waitTool("late_form")
		if req, _ := schemaOf(t, tool.InputSchema)["required"].([]any); len(req) != 1 || req[0] != "a" {
			t.Errorf("late_form inputSchema = %v, want required [a]", tool.InputSchema)
		}
		eval[bool](t, tab, `document.getElementById('late-form').setAttribute('toolname', 'renamed_form'), true`)
		b.waitTools("the renamed form", func(m map[string]*mcp.Tool) bool { return m["renamed_form"] != nil && m["late_form"] == nil })
		eval[bool](t, tab, `document.getElementById('late-form').remove(), true`)
		b.waitTools("the removed form gone", func(m map[string]*mcp.Tool) bool { return m["renamed_form"] == nil && m["add_note"] != nil })
	})
}

// addNoteArgs is the add_note call that the Chromium and Firefox suites
// make on the demo's orders page.
var addNoteArgs = map[string]any{"order": 7, "text": "ring back", "urgent": true, "channel": "phone"}

// addNoteResult is the orders page's respondWith value for add_note.
type addNoteResult struct {
	Order int `json:"order"`
	Notes []struct {
		Text    string `json:"text"`
		Urgent  bool   `json:"urgent"`
		Channel string `json:"channel"`
	} `json:"notes"`
}

// ringsBack says whether r is order 7's one note, as addNoteArgs asked.
func (r addNoteResult) ringsBack() bool {
	return r.Order == 7 && len(r.Notes) == 1 && r.Notes[0].Text == "ring back" && r.Notes[0].Urgent && r.Notes[0].Channel == "phone"
}
