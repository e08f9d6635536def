package shim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// startBrowser starts a host in dir whose fake extension says it is a
// Chromium 156 profile with the given instance id, with page p.
func startBrowser(t *testing.T, dir, instance string, p *bridgetest.Page) *fakeext.Ext {
	t.Helper()
	ext := bridgetest.StartExt(t, fakeext.Options{RuntimeDir: dir, Handler: p.Serve, RequestHandler: p.ServeRequest,
		Browser: &protocol.Browser{Name: "Chromium", Version: "156.0.0.0", Instance: instance, ExtensionID: protocol.ExtensionID}})
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostBrowser(t, ext.Socket())
	return ext
}

// TestOpenPageInBrowser: open_page's browser argument names a browser by
// its host's pid or by the start of its name; a name that several
// connected browsers share (two Chromiums of one version) is an error that
// names each by its hostPid, as is a browser that is not connected, and
// neither opens anything.
func TestOpenPageInBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	opened := func(p *bridgetest.Page) {
		p.HandleRequest(protocol.MethodOpenPage, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
			return json.RawMessage(`{"tabId":40,"url":"http://localhost:8080/","title":"Opened","tools":[]}`), nil
		})
	}
	p1, p2 := bridgetest.NewPage(), bridgetest.NewPage()
	opened(p1)
	opened(p2)
	ext1 := startBrowser(t, dir, "one", p1)
	ext2 := startBrowser(t, dir, "two", p2)
	sc := startShim(t, dir, 0)
	for _, e := range []*fakeext.Ext{ext1, ext2} {
		if err := e.SetState([]protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
			t.Fatal(err)
		}
	}
	sc.AwaitTools(ctx, "a tool of each browser", bridgetest.Has("echo", "echo_2"))
	openIn := func(browser string) (pid int, text string) {
		t.Helper()
		res := sc.Call(ctx, "open_page", map[string]any{"url": "http://localhost:8080/", "browser": browser})
		var op struct {
			HostPID int `json:"hostPid"`
		}
		json.Unmarshal([]byte(bridgetest.Text(res)), &op)
		if res.IsError {
			if res.Meta[results.MetaPageRan] != "no" {
				t.Errorf("open_page in %q = %s with _meta %v, want pageRan no", browser, bridgetest.Text(res), res.Meta)
			}
			return 0, bridgetest.Text(res)
		}
		return op.HostPID, ""
	}
	for _, e := range []*fakeext.Ext{ext1, ext2} {
		if got, msg := openIn(strconv.Itoa(e.PID())); got != e.PID() {
			t.Errorf("open_page in browser %d opened in %d: %s", e.PID(), got, msg)
		}
	}
	n1, n2 := len(p1.Requests()), len(p2.Requests())
	for _, name := range []string{"Chromium", "chromium 156", "Firefox", "1"} {
		got, msg := openIn(name)
		if got != 0 || !strings.Contains(msg, fmt.Sprintf("hostPid %d", ext1.PID())) || !strings.Contains(msg, fmt.Sprintf("hostPid %d", ext2.PID())) {
			t.Errorf("open_page in %q opened in %d (%s), want an error that names both browsers by hostPid", name, got, msg)
		}
	}
	if len(p1.Requests()) != n1 || len(p2.Requests()) != n2 {
		t.Errorf("open_page in a browser that is ambiguous or not connected reached a browser")
	}
}
