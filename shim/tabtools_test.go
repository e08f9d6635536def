package shim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// TestOpenPage: open_page asks the browser for a new tab and answers with
// the MCP names of the tools it brought, once they are MCP tools; other
// schemes never reach the browser; the user's no is an error that says so.
func TestOpenPage(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	var ext *fakeext.Ext
	decline := false
	p.HandleRequest(protocol.MethodOpenPage, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		if decline {
			return nil, protocol.Errorf("declined", "the user declined to open https://bank.example; do not ask again unless the user says so")
		}
		var params struct{ URL string }
		json.Unmarshal(req.Params, &params)
		// The page opens and registers its tools (one clashes with tab 12's).
		ext.UpdateTab(protocol.Tab{ID: 40, URL: params.URL, Title: "Opened", Origin: "http://localhost:8080", Allowed: true})
		ext.AddTools(bridgetest.Tool(40, "echo"), bridgetest.Tool(40, "fresh"))
		return json.RawMessage(`{"tabId":40,"url":"` + params.URL + `","title":"Opened","tools":["echo","fresh"]}`), nil
	})
	sc, e, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)
	ext = e

	res := sc.Call(ctx, "open_page", map[string]any{"url": "http://localhost:8080/trace"})
	var op struct {
		TabID int      `json:"tabId"`
		Title string   `json:"title"`
		Tools []string `json:"tools"`
	}
	bridgetest.Structured(t, res, &op)
	if res.IsError || op.TabID != 40 || op.Title != "Opened" || strings.Join(op.Tools, ",") != "echo_2,fresh" {
		t.Fatalf("open_page = %s, want tab 40 with echo_2 and fresh", bridgetest.Text(res))
	}
	// Its tools are callable at once.
	var got bridgetest.Echoed
	bridgetest.Structured(t, sc.Call(ctx, "echo_2", nil), &got)
	if got.Tab != 40 {
		t.Errorf("echo_2 ran in tab %d, want 40", got.Tab)
	}

	before := len(p.Requests())
	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "data:text/html,hi", "about:blank"} {
		res := sc.Call(ctx, "open_page", map[string]any{"url": bad})
		if !res.IsError || !strings.Contains(bridgetest.Text(res), "only web pages") || res.Meta[results.MetaPageRan] != "no" {
			t.Errorf("open_page %s = %q, want an error refusing it", bad, bridgetest.Text(res))
		}
	}
	if n := len(p.Requests()) - before; n != 0 {
		t.Errorf("%d refused URLs reached the browser", n)
	}

	decline = true
	res = sc.Call(ctx, "open_page", map[string]any{"url": "https://bank.example/"})
	if !res.IsError || !strings.Contains(bridgetest.Text(res), "the user declined") || res.Meta[results.MetaCode] != "declined" {
		t.Errorf("a declined open_page = %q %v", bridgetest.Text(res), res.Meta)
	}
}

func TestFocusAndCloseTab(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.HandleRequest(protocol.MethodFocusTab, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		return req.Params, nil
	})
	p.HandleRequest(protocol.MethodCloseTab, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		return nil, protocol.Errorf(protocol.CodeNotAllowed, "closeTab: tab 12 was not opened by this agent with open_page; only the user closes it")
	})
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)

	if res := sc.Call(ctx, "focus_tab", map[string]any{"tabId": 12}); res.IsError {
		t.Errorf("focus_tab 12 = %s", bridgetest.Text(res))
	}
	reqs := p.Requests()
	if last := reqs[len(reqs)-1]; last.Method != protocol.MethodFocusTab || string(last.Params) != `{"tabId":12}` {
		t.Errorf("the browser got %s %s", last.Method, last.Params)
	}
	if res := sc.Call(ctx, "close_tab", map[string]any{"tabId": 12}); !res.IsError || !strings.Contains(bridgetest.Text(res), "only the user closes it") {
		t.Errorf("close_tab of the user's tab = %s", bridgetest.Text(res))
	}
	if res := sc.Call(ctx, "focus_tab", map[string]any{"tabId": 99}); !res.IsError || res.Meta[results.MetaCode] != protocol.CodeNotFound {
		t.Errorf("focus_tab of no tab = %s", bridgetest.Text(res))
	}
	if res := sc.Call(ctx, "close_tab", map[string]any{}); !res.IsError || res.Meta[results.MetaCode] != results.CodeInvalidArguments {
		t.Errorf("close_tab without a tab = %s", bridgetest.Text(res))
	}
}
