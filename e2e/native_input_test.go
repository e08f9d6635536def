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

// In native mode the bridge calls a tool through the browser's executeTool
// with the agent's arguments as they are: the input the browser records
// for the call (DevTools' WebMCP view, the CDP event toolInvoked) is the
// agent's, with no mark of the bridge's in it (issue 21 item 11), and the
// agent still gets the page's own error, not the browser's generic one.
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
	res := b.call(ctx, "echo_input", map[string]any{"n": 7})
	if res.IsError || text(res) != `{"input":{"n":7}}` {
		t.Errorf("echo_input = %q (isError %v), want the page's answer {\"input\":{\"n\":7}}", text(res), res.IsError)
	}
	select {
	case e := <-invoked:
		if e.ToolName != "echo_input" || e.Input != `{"n":7}` {
			t.Errorf("the browser recorded %s(%s), want echo_input({\"n\":7}): the agent's input, untouched", e.ToolName, e.Input)
		}
	case <-ctx.Done():
		t.Fatal("no toolInvoked event for echo_input")
	}
	if got := eval[string](t, tab, `JSON.stringify(window.inputs)`); got != `[{"n":7}]` {
		t.Errorf("the page's execute saw %s, want [{\"n\":7}]", got)
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
