package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveDialogs serves e2e/testdata/dialogs on a loopback port (localhost is
// allowed by default) and returns the page's URL.
func serveDialogs(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(filepath.Join(repoRoot, "e2e", "testdata", "dialogs")))}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://localhost:%d/index.html", ln.Addr().(*net.TCPAddr).Port)
}

// dialogEvents reports the tab's JavaScript dialogs as they open.
func dialogEvents(t *testing.T, tab context.Context) <-chan page.EventJavascriptDialogOpening {
	t.Helper()
	if _, err := chromedp.Call(tab, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	opened := make(chan page.EventJavascriptDialogOpening, 4)
	ctx, stop := context.WithCancel(tab)
	t.Cleanup(stop)
	go func() {
		for e, err := range chromedp.Events(ctx, page.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			opened <- e
		}
	}()
	return opened
}

// A page blocked in alert, confirm or prompt runs no script, so its frame
// cannot answer: the bridge answers a call to it at once (the browser's own
// agent, CDP WebMCP.invokeTool, waits until the user answered the dialog),
// saying which dialog and its text; the call does not run later. The tools
// stay listed, and the call whose tool opened the dialog gets its answer
// once the user answered. Issue FID part B.
func TestDialogBlocksCalls(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(serveDialogs(t))
		if !eval[bool](t, tab, `window.ready`) {
			t.Fatal("the page did not register its tools")
		}
		opened := dialogEvents(t, tab)
		b.waitTools("the dialog page's tools", func(m map[string]*mcp.Tool) bool {
			return m["opens_alert"] != nil && m["opens_confirm"] != nil && m["opens_prompt"] != nil && m["answers"] != nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
		defer cancel()

		for _, c := range []struct {
			tool, kind, text, want string
			answer                 page.HandleJavaScriptDialogParams
		}{
			{"opens_alert", "alert", `Hello "there"`, "alert closed", page.HandleJavaScriptDialogParams{Accept: true}},
			{"opens_confirm", "confirm", "Delete it?", `{"confirmed":true}`, page.HandleJavaScriptDialogParams{Accept: true}},
			{"opens_prompt", "prompt", "Your name?", `{"answer":"Ada"}`, page.HandleJavaScriptDialogParams{Accept: true, PromptText: "Ada"}},
		} {
			first := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"text": c.text}})
				if err != nil {
					t.Errorf("call %s: %v", c.tool, err)
				}
				first <- res
			}()
			select {
			case e := <-opened:
				if string(e.Type) != c.kind || e.Message != c.text {
					t.Errorf("the page opened %s %q, want %s %q", e.Type, e.Message, c.kind, c.text)
				}
			case <-ctx.Done():
				t.Fatalf("%s opened no dialog", c.tool)
			}

			// Another call while the dialog is up: answered, not run.
			res := b.call(ctx, "answers", map[string]any{"text": "during " + c.kind})
			wantText := fmt.Sprintf("the page is blocked by a dialog (%s: %q): the user must answer it in the browser", c.kind, c.text)
			if !res.IsError || !strings.Contains(text(res), wantText) || !strings.Contains(text(res), "The page did not run this call") {
				t.Errorf("a call during the %s = %q (isError %v), want an error saying %q and that the page did not run it", c.kind, text(res), res.IsError, wantText)
			}
			// The page's tools stay listed meanwhile.
			list, err := b.client.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tool := range list.Tools {
				names[tool.Name] = true
			}
			if !names["answers"] || !names[c.tool] {
				t.Errorf("while the %s is up the tools are %v, want the page's still listed", c.kind, names)
			}

			if _, err := chromedp.Call(tab, page.HandleJavaScriptDialog, c.answer); err != nil {
				t.Fatalf("answer the %s: %v", c.kind, err)
			}
			select {
			case r := <-first:
				if r == nil || r.IsError || text(r) != c.want {
					t.Errorf("%s after the user answered = %q, want %s", c.tool, text(r), c.want)
				}
			case <-ctx.Done():
				t.Fatalf("%s got no answer once the dialog was answered", c.tool)
			}
			// The page runs calls again.
			res = b.call(ctx, "answers", map[string]any{"text": "after " + c.kind})
			if res.IsError {
				t.Errorf("a call after the %s = %q, want the page's answer", c.kind, text(res))
			}
		}
		// Only the calls made while no dialog was up ran.
		if got := eval[string](t, tab, `JSON.stringify(answered.map((a) => a.text))`); got != `["after alert","after confirm","after prompt"]` {
			t.Errorf("the page's answers tool ran for %s, want only the calls after each dialog", got)
		}

		// A tool registered in the task that opens an alert: its report has
		// not left the page when the dialog blocks it, and it is listed all
		// the same. (In native mode the bridge learns of the browser's tools
		// by getTools(), which cannot answer in that task: such a tool is
		// listed once the dialog closed.)
		if m != polyfill {
			return
		}
		eval[bool](t, tab, `setTimeout(registerThenAlert, 0), true`)
		select {
		case <-opened:
		case <-ctx.Done():
			t.Fatal("registerThenAlert opened no dialog")
		}
		b.waitTool("registered_before_alert")
		res := b.call(ctx, "registered_before_alert", map[string]any{})
		if !res.IsError || !strings.Contains(text(res), `(alert: "Registered one more")`) {
			t.Errorf("a call during the load-time alert = %q, want the dialog's error", text(res))
		}
		if _, err := chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil {
			t.Fatal(err)
		}
		res = b.call(ctx, "registered_before_alert", map[string]any{})
		if res.IsError || text(res) != "ok" {
			t.Errorf("registered_before_alert after the alert = %q, want \"ok\"", text(res))
		}
	})
}

// The bridge's wrappers of alert, confirm and prompt look to the page as
// the browser's own do: name, length, text, no prototype, the same property
// descriptor, and Function.prototype.toString's own text.
func TestDialogFunctionsLookNative(t *testing.T) {
	url := serveDialogs(t)
	ref := startReference(t)
	rtab, _ := ref.open(url)
	want := eval[string](t, rtab, `JSON.stringify(looks())`)
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(url)
		if got := eval[string](t, tab, `JSON.stringify(looks())`); got != want {
			t.Errorf("with the bridge the page sees\n%s\nwithout it\n%s", got, want)
		}
	})
}
