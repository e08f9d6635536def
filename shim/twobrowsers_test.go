package shim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// TestTabInTwoBrowsers: tab ids are each browser's own, and two browsers
// (copies of one profile above all) may have a tab of the same id.
// focus_tab and close_tab go to the browser their browser argument names;
// without it they go to the one browser that has the tab, and a tab id that
// several have is an error that names them, which reaches no browser.
func TestTabInTwoBrowsers(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	answer := func(p *bridgetest.Page) {
		for _, m := range []string{protocol.MethodFocusTab, protocol.MethodCloseTab} {
			p.HandleRequest(m, func(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
				return req.Params, nil
			})
		}
	}
	p1, p2 := bridgetest.NewPage(), bridgetest.NewPage()
	answer(p1)
	answer(p2)
	ext1 := startBrowser(t, dir, "one", p1)
	ext2 := startBrowser(t, dir, "two", p2)
	sc := startShim(t, dir, 0)
	if err := ext1.SetState([]protocol.Tab{bridgetest.Tab(12, "One")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	if err := ext2.SetState([]protocol.Tab{bridgetest.Tab(12, "Two"), bridgetest.Tab(13, "Three")}, []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(13, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "the tools of both browsers", bridgetest.Has("echo", "echo_2", "echo_3"))

	// requests are the focusTab and closeTab requests each page got.
	requests := func(p *bridgetest.Page) (out []string) {
		for _, r := range p.Requests() {
			out = append(out, r.Method+" "+string(r.Params))
		}
		return out
	}
	for _, c := range []struct {
		tool    string
		args    map[string]any
		in1     []string // the requests of the first browser after the call
		in2     []string
		problem string // in the error, if the call fails
	}{
		{"focus_tab", map[string]any{"tabId": 12}, nil, nil, "tab 12 is open in 2 browsers"},
		{"close_tab", map[string]any{"tabId": 12}, nil, nil, "tab 12 is open in 2 browsers"},
		{"focus_tab", map[string]any{"tabId": 12, "browser": strconv.Itoa(ext2.PID())}, nil, []string{`focusTab {"tabId":12}`}, ""},
		{"close_tab", map[string]any{"tabId": 12, "browser": strconv.Itoa(ext1.PID())}, []string{`closeTab {"tabId":12}`}, []string{`focusTab {"tabId":12}`}, ""},
		{"focus_tab", map[string]any{"tabId": 13}, []string{`closeTab {"tabId":12}`}, []string{`focusTab {"tabId":12}`, `focusTab {"tabId":13}`}, ""},
		{"focus_tab", map[string]any{"tabId": 13, "browser": strconv.Itoa(ext1.PID())}, []string{`closeTab {"tabId":12}`}, []string{`focusTab {"tabId":12}`, `focusTab {"tabId":13}`}, fmt.Sprintf("no tab 13 in the browser of hostPid %d", ext1.PID())},
		{"close_tab", map[string]any{"tabId": 12, "browser": "Chromium"}, []string{`closeTab {"tabId":12}`}, []string{`focusTab {"tabId":12}`, `focusTab {"tabId":13}`}, `2 connected browsers are "Chromium"`},
	} {
		res := sc.Call(ctx, c.tool, c.args)
		what := fmt.Sprintf("%s %v", c.tool, c.args)
		switch {
		case c.problem == "" && res.IsError:
			t.Errorf("%s = %s", what, bridgetest.Text(res))
		case c.problem != "" && (!res.IsError || !strings.Contains(bridgetest.Text(res), c.problem) || res.Meta[results.MetaPageRan] != "no"):
			t.Errorf("%s = %s (_meta %v), want an error that says %q and that nothing ran", what, bridgetest.Text(res), res.Meta, c.problem)
		}
		if c.problem != "" && strings.Contains(c.problem, "2 browsers") {
			for _, e := range []*fakeext.Ext{ext1, ext2} {
				if !strings.Contains(bridgetest.Text(res), fmt.Sprintf("hostPid %d", e.PID())) {
					t.Errorf("%s = %s, want it to name each browser by hostPid", what, bridgetest.Text(res))
				}
			}
		}
		if got1, got2 := requests(p1), requests(p2); !slices.Equal(got1, c.in1) || !slices.Equal(got2, c.in2) {
			t.Errorf("after %s the first browser got %q and the second %q, want %q and %q", what, got1, got2, c.in1, c.in2)
		}
	}
}
