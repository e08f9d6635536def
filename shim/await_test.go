package shim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// An agent's first call often comes as the browser starts: a call that
// needs a browser, made while none is connected, waits for one and goes
// through once its host is there. The shim starts with an empty runtime
// directory; the call is made; once the shim says it waits, a host starts
// whose browser has tab 12 with the tool echo.
func TestCallsWaitForABrowser(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args any
		ok   func(res *mcp.CallToolResult) bool
	}{
		{"open_page", map[string]any{"url": "http://localhost:8080/new"}, func(res *mcp.CallToolResult) bool {
			return strings.Contains(bridgetest.Text(res), `"tabId":40`)
		}},
		{"list_tabs", nil, func(res *mcp.CallToolResult) bool {
			return strings.Contains(bridgetest.Text(res), `"id":12`) && !strings.Contains(bridgetest.Text(res), results.NoBrowser)
		}},
		{"get_ui_context", nil, func(res *mcp.CallToolResult) bool {
			return strings.Contains(bridgetest.Text(res), `"id":12`) && !strings.Contains(bridgetest.Text(res), results.NoBrowser)
		}},
		{"focus_tab", map[string]any{"tabId": 12}, func(res *mcp.CallToolResult) bool {
			return strings.Contains(bridgetest.Text(res), `"tabId":12`)
		}},
		// A page tool the agent knows (from an earlier session, or before
		// a host restart): the browser's state brings it back.
		{"echo", map[string]any{"x": 1}, func(res *mcp.CallToolResult) bool {
			return strings.Contains(bridgetest.Text(res), `"args":{"x":1}`)
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ctx := bridgetest.Context(t)
			dir := bridgetest.RuntimeDir(t)
			log := bridgetest.NewLog(t, "webmcp-shim")
			// No bound of its own: the test's hang guard is the bound.
			srv := shim.New(shim.Options{Dir: dir, Logger: log.Slog(), BrowserWait: time.Hour})
			sc := bridgetest.ServeMCP(t, srv.Serve)

			resc := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				if err != nil {
					res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "protocol error: " + err.Error()}}}
				}
				resc <- res
			}()
			waiting := make(chan error, 1)
			go func() {
				_, err := log.Await(ctx, "waiting for one")
				waiting <- err
			}()
			select {
			case res := <-resc:
				t.Fatalf("%s answered before a browser connected: %s", tc.tool, bridgetest.Text(res))
			case err := <-waiting:
				if err != nil {
					t.Fatal(err)
				}
			}

			p := bridgetest.NewPage()
			p.HandleRequest(protocol.MethodOpenPage, func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
				return json.RawMessage(`{"tabId":40,"url":"http://localhost:8080/new","title":"New","tools":[]}`), nil
			})
			p.HandleRequest(protocol.MethodFocusTab, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
				return req.Params, nil
			})
			p.HandleRequest(protocol.MethodSampleContext, func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
				return nil, protocol.Errorf(protocol.CodeNotFound, "no context")
			})
			ext := bridgetest.StartExt(t, fakeext.Options{RuntimeDir: dir, Handler: p.Serve, RequestHandler: p.ServeRequest})
			// The state first, then the hello: once the shim sees the
			// browser, it sees its tools.
			if err := ext.SetState([]protocol.Tab{bridgetest.FocusedTab()}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
				t.Fatal(err)
			}
			if err := ext.Hello(); err != nil {
				t.Fatal(err)
			}
			res := bridgetest.Await(ctx, t, resc, tc.tool+"'s answer")
			if res.IsError || !tc.ok(res) {
				t.Errorf("%s once the browser connected = %s", tc.tool, bridgetest.Text(res))
			}
		})
	}
}

// With no browser at all, a call that needs one says so after the wait,
// and what to start; the wait ends with the call's --timeout if that comes
// first.
func TestNoBrowserAfterTheWait(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	for _, opts := range []shim.Options{
		{Dir: dir, BrowserWait: time.Millisecond},
		// The call's --timeout ends the wait (the test's hang guard
		// would catch a wait of an hour).
		{Dir: dir, BrowserWait: time.Hour, Timeout: time.Millisecond},
	} {
		opts.Logger = bridgetest.NewLog(t, "webmcp-shim").Slog()
		sc := bridgetest.ServeMCP(t, shim.New(opts).Serve)
		for _, tool := range []string{"open_page", "focus_tab", "echo"} {
			res := sc.Call(ctx, tool, map[string]any{"url": "http://localhost:8080/", "tabId": 12})
			if !res.IsError || !strings.Contains(bridgetest.Text(res), results.NoBrowser) || res.Meta[results.MetaCode] != protocol.CodeNoBrowser || res.Meta[results.MetaPageRan] != "no" {
				t.Errorf("%s without a browser (%+v) = %q %v, want %q", tool, opts, bridgetest.Text(res), res.Meta, results.NoBrowser)
			}
		}
		if res := sc.Call(ctx, "list_tabs", nil); res.IsError || !strings.Contains(bridgetest.Text(res), results.NoBrowser) {
			t.Errorf("list_tabs without a browser = %q, want a note that none is connected", bridgetest.Text(res))
		}
	}
}
