package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpwebmcp "github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// Declarative forms as Chromium 156 has them, compared in real Chromium:
// the browser's own WebMCP (native mode, the reference) against the
// extension's polyfill, on pages of testdata/forms with every kind of
// control. What a page observes and what an agent is given must be the
// same in both modes.

// formsPages serves testdata/forms on a loopback port of its own (an
// allowed origin: localhost, any port), started once.
var formsPages = sync.OnceValues(func() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	files := http.FileServer(http.Dir("testdata/forms"))
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	return ln.Addr().(*net.TCPAddr).Port, nil
})

// formsURL is the URL of a page of testdata/forms on localhost.
func formsURL(t testing.TB, path string) string {
	t.Helper()
	port, err := formsPages()
	if err != nil {
		t.Fatalf("serve the form pages: %v", err)
	}
	return "http://localhost:" + strconv.Itoa(port) + path
}

// browserToolSchema is the inputSchema the browser itself derives for the
// tool name of tab's top frame, as DevTools' WebMCP domain reports it
// (compact JSON).
func browserToolSchema(t *testing.T, tab context.Context, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	found := make(chan []byte, 1)
	evCtx, stop := context.WithCancel(ctx)
	defer stop()
	events := chromedp.Events(evCtx, cdpwebmcp.ToolsAdded)
	go func() {
		for e, err := range events {
			if err != nil {
				return
			}
			for _, tool := range e.Tools {
				if tool.Name == name {
					raw, _ := json.Marshal(tool.InputSchema)
					found <- raw
					return
				}
			}
		}
	}()
	if _, err := chromedp.Call(tab, cdpwebmcp.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("WebMCP.enable: %v", err)
	}
	select {
	case raw := <-found:
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			t.Fatalf("the browser's schema of %s is not JSON: %v", name, err)
		}
		return buf.String()
	case <-ctx.Done():
		t.Fatalf("the browser reported no tool %s through WebMCP.toolsAdded", name)
		return ""
	}
}

// pageToolSchema is what the page's getTools() gives as the inputSchema of
// the tool name (JSON text, in the object's key order).
func pageToolSchema(t *testing.T, tab context.Context, name string) string {
	t.Helper()
	return eval[string](t, tab, `document.modelContext.getTools().then(ts => {
		const s = ts.find(x => x.name === `+mustJSON(name)+`).inputSchema;
		return typeof s === 'string' ? JSON.stringify(JSON.parse(s)) : JSON.stringify(s);
	})`)
}

// formPages are the pages and their form tools that the comparisons read.
var formPages = []struct{ path, tool string }{
	{"/controls.html", "every_control"},
	{"/groups.html", "groups"},
}

// A declarative form gives the same tool in both modes: the polyfill's
// schema is the browser's own (as DevTools' WebMCP domain reports it),
// byte for byte in getTools(), and the agent is given the same schema
// whichever mode the user runs.
func TestFormSchemaIsTheBrowsers(t *testing.T) {
	type seen struct{ page, agent string }
	got := map[mode]map[string]seen{}
	var reference map[string]string // tool -> the browser's schema
	for _, m := range modes {
		b := start(t, m)
		got[m] = map[string]seen{}
		for _, p := range formPages {
			tab, _ := b.open(formsURL(t, p.path))
			// The page has loaded: its form is whole. The agent's copy may
			// still be one read while the parser was halfway through it
			// (TestFormToolWhileParsing), so wait for it to have every field.
			page := pageToolSchema(t, tab, p.tool)
			var whole struct {
				Properties map[string]any `json:"properties"`
			}
			if err := json.Unmarshal([]byte(page), &whole); err != nil {
				t.Fatalf("%s: the page's schema: %v", p.tool, err)
			}
			want := slices.Sorted(maps.Keys(whole.Properties))
			tool := b.waitTools(p.tool+" with every field", func(ts map[string]*mcp.Tool) bool {
				return slices.Equal(schemaFields(ts[p.tool]), want)
			})[p.tool]
			got[m][p.tool] = seen{page: page, agent: mustJSON(tool.InputSchema)}
			if m == native {
				if reference == nil {
					reference = map[string]string{}
				}
				reference[p.tool] = browserToolSchema(t, tab, p.tool)
			}
		}
	}
	for _, p := range formPages {
		ref := reference[p.tool]
		if n := got[native][p.tool].page; n != ref {
			t.Errorf("%s: native getTools() schema differs from the browser's own:\n%s\nbrowser:\n%s", p.tool, n, ref)
		}
		if pf := got[polyfill][p.tool].page; pf != ref {
			t.Errorf("%s: the polyfill's getTools() schema differs from the browser's:\n%s\nbrowser:\n%s", p.tool, pf, ref)
		}
		if a, n := got[polyfill][p.tool].agent, got[native][p.tool].agent; a != n {
			t.Errorf("%s: the agent's schema differs by mode:\npolyfill: %s\nnative:   %s", p.tool, a, n)
		}
	}
}

// fillEvents runs the form tool name twice from the page with the same
// input and returns, per control, the input and change events it got in
// each call.
func fillEvents(t *testing.T, tab context.Context, name string, input any) string {
	t.Helper()
	return eval[string](t, tab, `(async () => {
		const form = document.querySelector('form[toolname=`+name+`]');
		const counts = {};
		const key = (el) => el.name + (el.type === 'radio' || el.type === 'checkbox' ? '=' + el.value : '');
		for (const el of form.querySelectorAll('input, select, textarea')) {
			for (const type of ['input', 'change']) el.addEventListener(type, () => {
				const k = key(el) + ' ' + type;
				counts[k] = (counts[k] || 0) + 1;
			});
		}
		const tool = (await document.modelContext.getTools()).find(x => x.name === `+mustJSON(name)+`);
		const input = `+mustJSON(input)+`;
		await document.modelContext.executeTool(tool, input);
		const first = JSON.stringify(counts, Object.keys(counts).sort());
		await document.modelContext.executeTool(tool, input);
		return first + ' then ' + JSON.stringify(counts, Object.keys(counts).sort());
	})()`)
}

// executeTool on a form fires input and change on each control it changes,
// once, and none when a second call brings the same values (the WPT's
// select-multiple-events), the same in both modes.
func TestFormFillEventsAsTheBrowser(t *testing.T) {
	input := map[string]any{
		"text": "hello", "text_limits": "abc", "notes": "n", "email": "a@b.example", "url": "https://x.example/", "tel": "1",
		"search": "s", "password": "p", "date": "2026-05-01", "day": "2026-05-02", "time": "10:30", "time_s": "10:30:15",
		"time_ms": "10:30:15.5", "datetime": "2026-05-01T10:30", "datetime_s": "2026-05-01T10:30:30", "month": "2026-05",
		"week": "2026-W18", "color": "#ff0000", "count": 3, "price": 1.5, "anynum": 2, "level": 50, "agree": true,
		"toppings": []string{"ham"}, "size": "m", "fruit": "lemon", "fruits": []string{"apple", "banana"}, "described": "d",
	}
	got := map[mode]string{}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(formsURL(t, "/controls.html"))
		b.waitTool("every_control")
		got[m] = fillEvents(t, tab, "every_control", input)
		_, second, _ := strings.Cut(got[m], " then ")
		if !strings.Contains(second, `"fruits change":1,"fruits input":1,`) {
			t.Errorf("the select multiple got other than one input and one change over two calls with the same input: %s", second)
		}
		if m == polyfill {
			if got[native] == "" {
				bridgetest.SkipOutsideCI(t, "native mode gave no events to compare with (run it too)")
			}
			if got[polyfill] != got[native] {
				t.Errorf("events by control differ:\npolyfill: %s\nnative:   %s", got[polyfill], got[native])
			}
		}
	})
}

// During an agent's submission the form matches :tool-form-active and its
// submit button :tool-submit-active, through matches, closest and
// querySelector(All), and neither after it: the browser's own pseudo-classes
// natively, the attributes that stand in for them under the polyfill (a
// script cannot add pseudo-classes to style sheets; see extension/README.md).
// What the page observes is the same in both modes, and a selector that is
// invalid in both still throws.
func TestPseudoClassesAsTheBrowser(t *testing.T) {
	got := map[mode]string{}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(formsURL(t, "/pseudo.html"))
		b.waitTool("pseudo_tool")
		got[m] = eval[string](t, tab, `(async () => {
			const before = lookNow();
			const tool = (await document.modelContext.getTools()).find(x => x.name === 'pseudo_tool');
			const result = await document.modelContext.executeTool(tool, {query: 'testing'});
			return JSON.stringify({before, during: observed.during, after: lookNow(), result});
		})()`)
		want := `{"before":{"form":false,"formSubmit":false,"button":false,"inputForm":false,"inputSubmit":false,"query":null,"queryAll":0,"closest":null,"bogus":"SyntaxError"},` +
			`"during":{"form":true,"formSubmit":false,"button":true,"inputForm":false,"inputSubmit":false,"query":"pseudo-form","queryAll":1,"closest":"pseudo-form","bogus":"SyntaxError"},` +
			`"after":{"form":false,"formSubmit":false,"button":false,"inputForm":false,"inputSubmit":false,"query":null,"queryAll":0,"closest":null,"bogus":"SyntaxError"},"result":"result"}`
		if got[m] != want {
			t.Errorf("the page observed\n%s\nwant\n%s", got[m], want)
		}
	})
}

// What an agent reads when a form's call fails: a form the browser finds
// invalid names the field and the browser's reason, in both modes, without
// a doubled period and without saying that the page threw (it threw
// nothing). An argument off the form's schema goes to the form, as the
// browser's own agent sends it (issue FID), and the browser's reason comes
// with the bridge's note in plain words ("must be at least 1").
func TestFormCallFailureMessages(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.open(formsURL(t, "/validation.html"))
		b.waitTool("order_tea")
		res := b.call(context.Background(), "order_tea", map[string]any{"count": 0, "kind": "green"})
		if got := text(res); !res.IsError || !strings.HasPrefix(got, "tool order_tea failed: Form validation failed: count: ") || !strings.Contains(got, `field "count": must be at least 1, got 0`) {
			t.Errorf("count 0 = %q (isError %v), want the form's failure and the note: field \"count\": must be at least 1, got 0", got, res.IsError)
		}
		res = b.call(context.Background(), "order_tea", map[string]any{"count": 2, "kind": ""})
		const want = "tool order_tea failed: Form validation failed: kind: Please select an item in the list. The page's tool ran."
		if got := text(res); !res.IsError || got != want {
			t.Errorf("an invalid form = %q (isError %v), want %q", got, res.IsError, want)
		}
	})
}

// A page that goes away under a call (not a form submission the page
// answered for): the call may have run, and the agent learns where the tab
// is now, in one sentence, without a nested message.
func TestCallWhosePageGoesAway(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.open(formsURL(t, "/leave.html"))
		b.waitTool("go_elsewhere")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res := b.call(ctx, "go_elsewhere", map[string]any{})
		want := "The tab of tool go_elsewhere navigated away while the call ran; it now shows " + formsURL(t, "/controls.html") +
			` ("Every form control"), which offers the tools every_control. The page may have run this call, in part or in whole: check the page's state before calling again.`
		if got := text(res); !res.IsError || got != want || res.Meta["dev.webmcp/pageRan"] != "maybe" {
			t.Errorf("go_elsewhere = %q (isError %v, _meta %v), want %q", got, res.IsError, res.Meta, want)
		}
	})
}

// A form whose answer is the next page (an order-status form): the agent
// gets what Chromium answers (the next document's application/ld+json
// data: none here, []), then learns what that page says, its tools and its
// UI context, from the call's result.
func TestFormWhoseAnswerIsTheNextPage(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.open(formsURL(t, "/status.html"))
		b.waitTool("order_status")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res := b.call(ctx, "order_status", map[string]any{"order": "7"})
		want := "[]\nTool order_status ran and navigated its tab to " + formsURL(t, "/status-result.html?order=7") +
			` ("Order status: shipped"), which offers the tools track_parcel; its UI context: orders.Status: order 7: shipped.`
		if got := text(res); res.IsError || got != want {
			t.Errorf("order_status = %q (isError %v), want %q", got, res.IsError, want)
		}
	})
}
