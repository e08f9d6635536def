package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo app's tools, as the agent should see them.
func TestToolsListed(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		if got := eval[string](t, tab, `window.demo.ready.then(() => window.demo.mode)`); got != string(m) {
			t.Fatalf("the page runs on %q WebMCP, want %q", got, m)
		}
		tools := b.waitTools("the demo app's tools", func(m map[string]*mcp.Tool) bool {
			return m["select_slice"] != nil && m["find_slices"] != nil && m["get_selection"] != nil
		})

		sel := tools["select_slice"]
		if sel.Title == "" {
			t.Errorf("select_slice has no title")
		}
		if !strings.Contains(sel.Description, "localhost") {
			t.Errorf("select_slice description %q does not name its origin", sel.Description)
		}
		schema, _ := json.Marshal(sel.InputSchema)
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		json.Unmarshal(schema, &s)
		if s.Type != "object" || s.Properties["id"] == nil || len(s.Required) != 1 || s.Required[0] != "id" {
			t.Errorf("select_slice inputSchema = %s; want the page's schema with required id", schema)
		}
		// The page set no hint: none is invented (MCP's defaults apply at
		// the client), and the title is the page's.
		if a := sel.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint != nil || a.Title != sel.Title {
			t.Errorf("select_slice annotations = %+v; want its title alone, no hint", a)
		}
		if a := tools["get_selection"].Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("get_selection annotations = %+v; want readOnlyHint", a)
		}
		if _, ok := tools["list_tabs"]; !ok {
			t.Errorf("bridge tool list_tabs missing")
		}
	})
}

// A call changes the page, and its result comes back.
func TestCallChangesPage(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		b.waitTool("select_slice")
		ctx := context.Background()

		res := b.call(ctx, "select_slice", map[string]any{"id": 3})
		if res.IsError {
			t.Fatalf("select_slice: isError: %s", text(res))
		}
		if got := eval[string](t, tab, `document.querySelector(".slice.selected")?.dataset.id ?? ""`); got != "3" {
			t.Errorf("selected slice in the DOM = %q, want 3", got)
		}
		if !strings.Contains(text(res), `"id":3`) && !strings.Contains(text(res), `"id": 3`) {
			t.Errorf("select_slice result %q does not carry the slice", text(res))
		}

		res = b.call(ctx, "get_selection", map[string]any{})
		if res.IsError || !strings.Contains(text(res), `3`) {
			t.Errorf("get_selection = %q (isError %v), want slice 3", text(res), res.IsError)
		}
	})
}

// A throwing tool gives isError with the page's message; arguments that
// break the schema reach the page, as the browser's own agent passes them
// (Chromium 156 checks none), with the bridge's note naming the field.
func TestErrors(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		b.waitTool("fail")
		ctx := context.Background()

		res := b.call(ctx, "fail", map[string]any{})
		if !res.IsError || !strings.Contains(text(res), "boom from the page") {
			t.Errorf("fail = %q (isError %v); want isError with the page's message", text(res), res.IsError)
		}

		before := eval[int](t, tab, `window.demo.calls.select_slice ?? 0`)
		res = b.call(ctx, "select_slice", map[string]any{"id": "three"})
		if !strings.Contains(text(res), "do not match the tool's inputSchema") || !strings.Contains(text(res), `"id"`) {
			t.Errorf("select_slice with a string id = %q (isError %v); want the bridge's note naming the field", text(res), res.IsError)
		}
		if after := eval[int](t, tab, `window.demo.calls.select_slice ?? 0`); after != before+1 {
			t.Errorf("the page ran select_slice %d times with arguments off its schema, want once, as the browser's agent would", after-before)
		}
	})
}

// list_changed when the page registers a tool, aborts one, navigates, and
// when a tab opens and closes.
func TestListChanged(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		b.waitTool("select_slice")

		eval[any](t, tab, `window.demo.registerExtra("extra_tool")`)
		b.waitTool("extra_tool")

		eval[any](t, tab, `window.demo.unregisterExtra("extra_tool")`)
		b.waitTools("extra_tool to go", func(m map[string]*mcp.Tool) bool { return m["extra_tool"] == nil })

		// A second tab with the same app: its tools clash and get a suffix;
		// the first tab's keep their names.
		_, close2 := b.open(demoURL("127.0.0.1", "/"))
		tools := b.waitTools("the second tab's tools", func(m map[string]*mcp.Tool) bool { return m["select_slice_2"] != nil })
		if !strings.Contains(tools["select_slice"].Description, "localhost") {
			t.Errorf("select_slice changed hands: %q", tools["select_slice"].Description)
		}
		close2()
		b.waitTools("the second tab's tools to go", func(m map[string]*mcp.Tool) bool {
			return m["select_slice_2"] == nil && m["select_slice"] != nil
		})

		// Navigating away drops the page's tools.
		if err := navigate(tab, demoURL("localhost", "/iframe.html")); err != nil {
			t.Fatal(err)
		}
		b.waitTools("the tools to follow the navigation", func(m map[string]*mcp.Tool) bool {
			return m["select_slice"] == nil && m["frame_tool"] != nil
		})
	})
}

// Cancelling a slow call reaches the page's AbortSignal.
func TestCancel(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		b.waitTool("slow_task")

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"ms": 60000}})
			done <- err
		}()
		waitPage(t, tab, `document.querySelector("#status").textContent.includes("slow_task running")`)
		cancel()
		if err := <-done; err == nil {
			t.Errorf("cancelled call returned no error")
		}
		waitPage(t, tab, `window.__lastAbort && window.__lastAbort.tool === "slow_task"`)

		// The chain still works after the cancellation.
		res := b.call(context.Background(), "get_selection", map[string]any{})
		if res.IsError {
			t.Errorf("get_selection after a cancel: %s", text(res))
		}
	})
}

// The per-call timeout cancels the call in the page.
func TestTimeout(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.client.Close()
		b.client = b.connectShim("--timeout", "1s")
		tab, _ := b.open(demoURL("localhost", "/"))
		b.waitTool("slow_task")
		res := b.call(context.Background(), "slow_task", map[string]any{"ms": 60000})
		if !res.IsError || !strings.Contains(text(res), "timed out") {
			t.Errorf("slow_task with a 1s timeout = %q (isError %v)", text(res), res.IsError)
		}
		waitPage(t, tab, `window.__lastAbort && window.__lastAbort.tool === "slow_task"`)
	})
}

// Tools of same-origin and cross-origin iframes.
func TestFrames(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for _, host := range []string{"localhost", "127.0.0.1"} {
			t.Run("frame on "+host, func(t *testing.T) {
				b := start(t, m)
				frame := demoURL(host, "/iframe.html")
				b.open(demoURL("localhost", "/?frame="+url.QueryEscape(frame)))
				tools := b.waitTools("frame_tool and the page's tools", func(m map[string]*mcp.Tool) bool {
					return m["frame_tool"] != nil && m["select_slice"] != nil
				})
				for name := range tools {
					if strings.HasSuffix(name, "_2") {
						t.Errorf("a tool is listed twice: %s", name)
					}
				}
				res := b.call(context.Background(), "frame_tool", map[string]any{})
				if res.IsError || !strings.Contains(text(res), "from frame "+host) {
					t.Errorf("frame_tool = %q (isError %v), want it answered by the frame on %s", text(res), res.IsError, host)
				}
			})
		}
	})
}

// A site outside the allow list exposes nothing, and gets nothing: no
// script of the extension runs in its pages (issue FID), so the bridge
// does not even learn that a tab of it is open.
func TestBlockedSite(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		blocked, _ := b.open(blockedOrigin + "/")
		// Polyfill mode: no WebMCP at all there, and the demo says so.
		eval[bool](t, blocked, `window.demo.ready.then(() => true, () => false)`)
		if m == native {
			// The page did register its tools in the browser; otherwise the
			// test would prove nothing.
			if n := eval[int](t, blocked, `document.modelContext.getTools().then(ts => ts.length)`); n == 0 {
				t.Fatalf("the blocked page registered no tools")
			}
		} else if eval[bool](t, blocked, `"modelContext" in document`) {
			t.Fatalf("the polyfill is in a page of a site not allowed")
		}
		// The same app on an allowed origin, opened after the blocked one
		// had registered its tools: once its tools are listed, the blocked
		// page's registrations would have long reached the extension.
		b.open(demoURL("localhost", "/"))
		tools := b.waitTool("select_slice")
		if strings.Contains(tools.Description, "127.0.0.2") {
			t.Errorf("select_slice comes from the blocked site: %s", tools.Description)
		}
		res, err := b.client.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if strings.Contains(tool.Description, "127.0.0.2") || strings.HasSuffix(tool.Name, "_2") {
				t.Errorf("a tool of the blocked site is exposed: %s (%s)", tool.Name, tool.Description)
			}
		}
		// Nothing of the tab: not its URL, title, nor its origin.
		tabs := text(b.call(context.Background(), "list_tabs", map[string]any{}))
		if strings.Contains(tabs, "127.0.0.2") {
			t.Errorf("list_tabs shows the blocked tab: %s", tabs)
		}
		status, err := b.shimCLI("status", "--json")
		if err != nil {
			t.Fatalf("webmcp-shim status: %v", err)
		}
		if strings.Contains(status, "127.0.0.2") {
			t.Errorf("webmcp-shim status shows the blocked tab:\n%s", status)
		}
	})
}

func navigate(tab context.Context, url string) error {
	return chromedp.Do(tab, chromedp.Navigate(url))
}
