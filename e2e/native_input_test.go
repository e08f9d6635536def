package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpwebmcp "github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
)

// In native mode the bridge runs a call with the agent's arguments as they
// are (issue 21 item 11): the page's execute sees the agent's input, with
// no mark of the bridge's in it, and the agent gets the page's own error,
// not the browser's generic one. By default the page's world runs the call
// itself (issue PERF2: no executeTool, so DevTools' WebMCP view does not
// list it); with "Run calls through the browser's executeTool" switched on
// in the options page, the call goes through executeTool and the input
// the browser records for it (the CDP event toolInvoked) is the agent's.
func TestNativeCallInputUntouched(t *testing.T) {
	b := start(t, native)
	port := serveConformance(t)
	tab, _ := b.open(fmt.Sprintf("http://localhost:%d/frames/agent-tools.html", port))
	if !eval[bool](t, tab, `window.ready`) {
		t.Fatal("the page did not register its tools")
	}
	ft, err := chromedp.Call(tab, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, cdpwebmcp.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	invoked := make(chan cdpwebmcp.EventToolInvoked, 16)
	evCtx, stopEvents := context.WithCancel(tab)
	defer stopEvents()
	go func() {
		for e, err := range chromedp.Events(evCtx, cdpwebmcp.ToolInvoked) {
			if err != nil {
				return
			}
			if e.FrameID == ft.FrameTree.Frame.ID {
				invoked <- e
			}
		}
	}()
	b.waitTool("echo_input")
	b.waitTool("refuses")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	// The default way: the page's world runs the call.
	res := b.call(ctx, "echo_input", map[string]any{"n": 6})
	if res.IsError || text(res) != `{"input":{"n":6}}` {
		t.Errorf("echo_input = %q (isError %v), want the page's answer {\"input\":{\"n\":6}}", text(res), res.IsError)
	}
	res = b.call(ctx, "refuses", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "the page says no") {
		t.Errorf("refuses, run directly = %q (isError %v), want the page's own error", text(res), res.IsError)
	}

	// The options page's switch: every call through executeTool.
	opts := b.openUI("ui/options.html")
	waitPage(t, opts, `!!document.querySelector('#call-path-body input[role=switch]')`)
	if err := chromedp.Do(opts, chromedp.Click(chromedp.CSS(`#call-path-body input[role=switch]`))); err != nil {
		t.Fatal(err)
	}
	waitPage(t, opts, `document.getElementById('status').textContent.includes("executeTool")`)

	res = b.call(ctx, "echo_input", map[string]any{"n": 7})
	if res.IsError || text(res) != `{"input":{"n":7}}` {
		t.Errorf("echo_input = %q (isError %v), want the page's answer {\"input\":{\"n\":7}}", text(res), res.IsError)
	}
	// The first call the browser recorded is this one: the direct calls
	// before it went around executeTool.
	select {
	case e := <-invoked:
		if e.ToolName != "echo_input" || e.Input != `{"n":7}` {
			t.Errorf("the browser recorded %s(%s), want echo_input({\"n\":7}): the agent's input, untouched (and no record of the direct calls)", e.ToolName, e.Input)
		}
	case <-ctx.Done():
		t.Fatal("no toolInvoked event for echo_input")
	}
	if got, want := eval[string](t, tab, `JSON.stringify(window.inputs)`), `[{"n":6},{"refuses":"{}","proto":true},{"n":7}]`; got != want {
		t.Errorf("the page's execute saw %s, want %s", got, want)
	}

	res = b.call(ctx, "refuses", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "the page says no") {
		t.Errorf("refuses = %q (isError %v), want the page's own error", text(res), res.IsError)
	}
	select {
	case e := <-invoked:
		if e.ToolName != "refuses" || e.Input != `{}` {
			t.Errorf("the browser recorded %s(%s), want refuses({})", e.ToolName, e.Input)
		}
	case <-ctx.Done():
		t.Fatal("no toolInvoked event for refuses")
	}

	// Two calls alike at once: each gets an answer.
	done := make(chan string, 2)
	for range 2 {
		go func() {
			r := b.call(ctx, "echo_input", map[string]any{"n": 1})
			done <- text(r)
		}()
	}
	for range 2 {
		if got := <-done; got != `{"input":{"n":1}}` {
			t.Errorf("a call of two alike = %q, want {\"input\":{\"n\":1}}", got)
		}
	}
}
