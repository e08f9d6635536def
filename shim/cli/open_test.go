package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

func TestOpen(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	var ext *fakeext.Ext
	p.HandleRequest(protocol.MethodOpenPage, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		var params struct {
			URL        string
			Background bool
		}
		json.Unmarshal(req.Params, &params)
		if !params.Background {
			return nil, protocol.Errorf(protocol.CodeDeclined, "the user declined to open %s", params.URL)
		}
		ext.UpdateTab(protocol.Tab{ID: 40, URL: params.URL, Title: "Opened", Origin: "http://localhost:8080", Allowed: true})
		ext.AddTools(bridgetest.Tool(40, "fresh"))
		return json.RawMessage(`{"tabId":40,"url":"` + params.URL + `","title":"Opened","tools":["fresh"]}`), nil
	})
	ext = bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "One")}, nil); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tabs) == 1 })

	r := runCLI(ctx, t, dir, "", "open", "--background", "http://localhost:8080/x")
	r.expect(t, "open --background", 0)
	if !strings.Contains(r.stdout, `opened tab 40 "Opened" http://localhost:8080/x`) || !strings.Contains(r.stdout, "tools: fresh") {
		t.Errorf("open printed %q", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "open", "http://localhost:8080/y")
	r.expect(t, "open (declined)", ExitFail)
	if !strings.Contains(r.stderr, "the user declined to open http://localhost:8080/y") {
		t.Errorf("a declined open printed %q", r.stderr)
	}
	for _, bad := range [][]string{{"open"}, {"open", "file:///etc/passwd"}, {"open", "a", "b"}} {
		r = runCLI(ctx, t, dir, "", bad...)
		r.expect(t, strings.Join(bad, " "), ExitUsage)
	}
}
