package shim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// contextSetup starts a host whose state has the focused tab 12 (with an
// echo tool, to know when the shim has the state), a context for it and
// pins, and a shim connected to it.
func contextSetup(t *testing.T, p *bridgetest.Page, c *protocol.Context, pins ...protocol.Pin) (*bridgetest.MCPClient, *fakeext.Ext) {
	t.Helper()
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	snap := &protocol.Snapshot{Tabs: []protocol.Tab{bridgetest.FocusedTab(), bridgetest.BankTab()}, Tools: []protocol.Tool{bridgetest.Tool(12, "echo")}, Pins: pins}
	if c != nil {
		snap.Contexts = []protocol.Context{*c}
	}
	if err := ext.SendState(snap); err != nil {
		t.Fatal(err)
	}
	sc := startShim(t, dir, 0)
	sc.AwaitTools(ctx, "echo appears", bridgetest.Has("echo"))
	return sc, ext
}

// uiContext calls get_ui_context and returns its payload, from the text
// (which keeps the JSON as the shim wrote it), after checking that the
// structuredContent holds the same.
func uiContext(t *testing.T, sc *bridgetest.MCPClient) (uicontext.View, *mcp.CallToolResult) {
	t.Helper()
	res := sc.Call(bridgetest.Context(t), "get_ui_context", nil)
	if res.IsError {
		t.Fatalf("get_ui_context failed: %s", bridgetest.Text(res))
	}
	var v uicontext.View
	if err := json.Unmarshal([]byte(bridgetest.Text(res)), &v); err != nil {
		t.Fatalf("get_ui_context's text is not the JSON payload: %v\n%s", err, bridgetest.Text(res))
	}
	var fromText, fromStructured any
	json.Unmarshal([]byte(bridgetest.Text(res)), &fromText)
	bridgetest.Structured(t, res, &fromStructured)
	if diff := cmp.Diff(fromText, fromStructured); diff != "" {
		t.Errorf("get_ui_context's structuredContent differs from its text (-text +structured):\n%s", diff)
	}
	return v, res
}

func TestGetUIContextSamplesFresh(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	var mu sync.Mutex
	var extp *fakeext.Ext
	p.HandleRequest(protocol.MethodSampleContext, bridgetest.SampleWith(func() *fakeext.Ext { mu.Lock(); defer mu.Unlock(); return extp },
		func() protocol.Context { return bridgetest.TraceContext("fresh: slice CommitNavigation", time.Now()) }))
	old := bridgetest.TraceContext("old: slice Layout", time.Now().Add(-time.Minute))
	sc, ext := contextSetup(t, p, &old)
	mu.Lock()
	extp = ext
	mu.Unlock()

	tl := sc.Tools(ctx)["get_ui_context"]
	if tl == nil || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint {
		t.Fatalf("get_ui_context tool = %+v, want read-only", tl)
	}
	v, _ := uiContext(t, sc)
	if v.Tab == nil || *v.Tab != (uicontext.TabRef{ID: 12, URL: "http://localhost:8080/", Title: "Trace viewer"}) {
		t.Errorf("tab = %+v", v.Tab)
	}
	if len(v.Providers) != 1 || v.Providers[0].ID != bridgetest.SelectionID || v.Providers[0].Summary != "fresh: slice CommitNavigation" ||
		string(v.Providers[0].Data) != `{"type":"slice","id":3,"ts":1200,"dur":12300000}` {
		t.Errorf("providers = %+v, want the fresh sample", v.Providers)
	}
	if v.Stale != "" || v.SampledAt == "" {
		t.Errorf("stale %q, sampledAt %q", v.Stale, v.SampledAt)
	}
	if len(v.Notes) != 1 || v.Notes[0] != (uicontext.Note{ID: "trace.Flaky", Note: "getContext threw: not ready"}) {
		t.Errorf("notes = %+v", v.Notes)
	}
	if v.Ambient == nil || v.Ambient.Selection != "CommitNavigation" || v.Ambient.Focused == nil || v.Ambient.Focused.Name != "Zoom in" {
		t.Errorf("ambient = %+v", v.Ambient)
	}
	if v.Descriptions[bridgetest.SelectionID] != bridgetest.SelectionDesc || len(v.Descriptions) != 1 {
		t.Errorf("descriptions = %v", v.Descriptions)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Method != protocol.MethodSampleContext || string(reqs[0].Params) != `{"tabId":12}` {
		t.Errorf("the extension got requests %+v, want one sampleContext of tab 12", reqs)
	}
}

func TestGetUIContextFallsBackToTheLatest(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	started := make(chan string, 1)
	p.HandleRequest(protocol.MethodSampleContext, func(ctx context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
		started <- req.ID
		<-ctx.Done() // a page that does not answer in time
		return nil, nil
	})
	cached := bridgetest.TraceContext("cached: slice Layout", time.Now().Add(-time.Minute))
	sc, ext := contextSetup(t, p, &cached)

	v, _ := uiContext(t, sc)
	if len(v.Providers) != 1 || v.Providers[0].Summary != "cached: slice Layout" {
		t.Errorf("providers = %+v, want the cached context", v.Providers)
	}
	if !strings.Contains(v.Stale, "no fresh sample within 300ms") || !strings.Contains(v.Stale, "latest context") {
		t.Errorf("stale = %q, want it to say that no fresh sample came in time", v.Stale)
	}
	if v.SampledAt != uicontext.FormatTime(cached.Time) {
		t.Errorf("sampledAt = %q, want the cached context's %q", v.SampledAt, uicontext.FormatTime(cached.Time))
	}
	id := bridgetest.Await(ctx, t, started, "the sample request")
	if _, err := ext.Await(ctx, bridgetest.IsCancel(id)); err != nil {
		t.Errorf("the late sample request %s was not cancelled: %v", id, err)
	}
}

func TestUIContextResource(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	first := bridgetest.TraceContext("first", time.Now())
	sc, ext := contextSetup(t, p, &first)

	res, err := sc.Session.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "webmcp://ui-context" || res.Resources[0].MIMEType != "application/json" {
		t.Fatalf("resources/list = %+v, %v", res, err)
	}
	if caps := sc.Session.InitializeResult().Capabilities.Resources; caps == nil || !caps.Subscribe {
		t.Errorf("resources capability = %+v, want subscribe", caps)
	}
	read := func() uicontext.View {
		t.Helper()
		r, err := sc.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "webmcp://ui-context"})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].MIMEType != "application/json" {
			t.Fatalf("resources/read = %+v, %v", r, err)
		}
		var v uicontext.View
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &v); err != nil {
			t.Fatalf("resource text: %v\n%s", err, r.Contents[0].Text)
		}
		return v
	}
	if v := read(); len(v.Providers) != 1 || v.Providers[0].Summary != "first" || v.Descriptions[bridgetest.SelectionID] != bridgetest.SelectionDesc {
		t.Fatalf("resource = %+v", v)
	}
	if err := sc.Session.Subscribe(ctx, &mcp.SubscribeParams{URI: "webmcp://ui-context"}); err != nil {
		t.Fatal(err)
	}
	if err := sc.Session.Subscribe(ctx, &mcp.SubscribeParams{URI: "webmcp://nope"}); err == nil {
		t.Error("subscribing to an unknown resource succeeded")
	}
	if err := sc.Session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "webmcp://nope"}); err == nil {
		t.Error("unsubscribing from an unknown resource succeeded")
	}

	// awaitUpdate waits for notifications until the resource satisfies ok.
	awaitUpdate := func(what string, ok func(uicontext.View) bool) {
		t.Helper()
		for {
			if uri := bridgetest.Await(ctx, t, sc.Updated, what); uri != "webmcp://ui-context" {
				t.Fatalf("update of %q", uri)
			}
			if ok(read()) {
				return
			}
		}
	}
	// A change of another tab alone sends nothing; the focused tab's
	// change that follows it does.
	other := bridgetest.TraceContext("other tab", time.Now())
	other.TabID = 14
	ext.UpdateTab(bridgetest.Tab(14, "Other"))
	ext.SetContext(other)
	second := bridgetest.TraceContext("second", time.Now())
	ext.SetContext(second)
	awaitUpdate("an update after the focused tab's context changed", func(v uicontext.View) bool {
		return len(v.Providers) == 1 && v.Providers[0].Summary == "second"
	})

	// Pins.
	ext.SetPins(protocol.Pin{ProviderID: bridgetest.SelectionID, Summary: "pinned one", Data: json.RawMessage(`{"id":9}`), TabID: 12, PinnedAt: time.Now().UnixMilli()})
	awaitUpdate("an update after a pin", func(v uicontext.View) bool { return len(v.Pinned) == 1 && v.Pinned[0].Summary == "pinned one" })

	// The focus moves to a tab that is not allowed: nothing of it shows.
	bank := bridgetest.BankTab()
	bank.Focused = true
	ext.UpdateTab(bank)
	awaitUpdate("an update after the focus moved", func(v uicontext.View) bool { return v.Tab == nil })
	if v := read(); v.Note != "no context: the site is not allowed" || len(v.Providers) != 0 || len(v.Pinned) != 1 {
		t.Errorf("resource with a focused tab not allowed = %+v", v)
	}
	if err := sc.Session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "webmcp://ui-context"}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
}

func TestInstructionsNameTheProviders(t *testing.T) {
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	c := bridgetest.TraceContext("x", time.Now())
	if err := ext.SendState(&protocol.Snapshot{Tabs: []protocol.Tab{bridgetest.FocusedTab()}, Tools: []protocol.Tool{}, Contexts: []protocol.Context{c}}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Contexts) == 1 })

	ins := startShim(t, dir, 0).Session.InitializeResult().Instructions
	for _, want := range []string{"WebMCP bridge", "<ui_context>", "<pinned_context>", "frozen snapshots", "- " + bridgetest.SelectionID + ": " + bridgetest.SelectionDesc} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions lack %q:\n%s", want, ins)
		}
	}
	// Without a browser: the brief alone.
	if ins := startShim(t, bridgetest.RuntimeDir(t), 0).Session.InitializeResult().Instructions; ins != uicontext.Brief {
		t.Errorf("instructions without a browser:\n%s", ins)
	}
}

func TestListTabsHidesSitesNotAllowed(t *testing.T) {
	ctx := bridgetest.Context(t)
	sc, _ := contextSetup(t, bridgetest.NewPage(), nil)
	res := sc.Call(ctx, "list_tabs", nil)
	var out struct {
		Tabs []map[string]any `json:"tabs"`
	}
	bridgetest.Structured(t, res, &out)
	if len(out.Tabs) != 2 || out.Tabs[0]["title"] != "Trace viewer" || out.Tabs[0]["focused"] != true {
		t.Fatalf("list_tabs = %s", bridgetest.Text(res))
	}
	want := map[string]any{"id": float64(13), "origin": "https://bank.example", "allowed": false}
	if fmt.Sprint(out.Tabs[1]) != fmt.Sprint(want) {
		t.Errorf("the tab that is not allowed shows %v, want only %v", out.Tabs[1], want)
	}
	if strings.Contains(bridgetest.Text(res), "bank account") || strings.Contains(bridgetest.Text(res), "accounts/123") {
		t.Errorf("list_tabs leaks the title or URL of a tab not allowed: %s", bridgetest.Text(res))
	}
}
