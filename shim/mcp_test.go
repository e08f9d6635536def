package shim_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
)

func TestInitializeWithoutBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	// The runtime directory does not even exist yet.
	sc := startShim(t, bridgetest.RuntimeDir(t)+"/not-yet", 0)
	init := sc.Session.InitializeResult()
	if init.ServerInfo.Name != "webmcp-shim" {
		t.Errorf("server name = %q", init.ServerInfo.Name)
	}
	if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want listChanged", init.Capabilities.Tools)
	}
	if got := bridgetest.Names(sc.Tools(ctx)); !cmp.Equal(got, []string{"close_tab", "focus_tab", "get_ui_context", "list_tabs", "open_page"}) {
		t.Errorf("tools = %v, want only the bridge's: list_tabs, get_ui_context, open_page, focus_tab, close_tab", got)
	}
	res := sc.Call(ctx, "list_tabs", nil)
	var out struct {
		Tabs []map[string]any `json:"tabs"`
		Note string           `json:"note"`
	}
	bridgetest.Structured(t, res, &out)
	if res.IsError || len(out.Tabs) != 0 || !strings.Contains(out.Note, "no browser connected") {
		t.Errorf("list_tabs without a browser = %s", bridgetest.Text(res))
	}
}

func TestToolsAppearAndDisappear(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	sc := startShim(t, dir, 0)
	if got := bridgetest.Names(sc.Tools(ctx)); len(got) != 5 {
		t.Fatalf("tools before any browser = %v, want the bridge's five", got)
	}

	p := bridgetest.NewPage()
	ext := bridgetest.StartHost(t, dir, p)
	echo := bridgetest.Tool(12, "echo")
	echo.Title = "Echo"
	echo.InputSchema = json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string","description":"what to say"}},"required":["msg"]}`)
	yes, no := true, false
	echo.Annotations = &protocol.Annotations{ReadOnlyHint: &yes, IdempotentHint: &yes, OpenWorldHint: &no}
	sel := bridgetest.Tool(12, "select")
	bank := bridgetest.Tab(13, "Bank")
	bank.Allowed = false
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer"), bank}, []protocol.Tool{echo, sel, bridgetest.Tool(13, "transfer")}); err != nil {
		t.Fatal(err)
	}
	tools := sc.AwaitChange(ctx, "echo and select appear", bridgetest.Has("echo", "select"))
	if tools["transfer"] != nil {
		t.Error("a tool of a tab that is not allowed was exposed")
	}

	e := tools["echo"]
	if want := `[localhost:8080 · tab 12 "Trace viewer"] [READ-ONLY] The page says: Does echo.`; e.Description != want {
		t.Errorf("description = %q, want %q", e.Description, want)
	}
	var wantSchema, gotSchema any
	json.Unmarshal(echo.InputSchema, &wantSchema)
	b, _ := json.Marshal(e.InputSchema)
	json.Unmarshal(b, &gotSchema)
	if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
		t.Errorf("inputSchema not passed through (-page +mcp):\n%s", diff)
	}
	if e.Title != "Echo" {
		t.Errorf("title = %q", e.Title)
	}
	a := e.Annotations
	if a == nil || !a.ReadOnlyHint || a.DestructiveHint != nil || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title != "Echo" {
		t.Errorf("echo annotations = %+v", a)
	}
	s := tools["select"]
	b, _ = json.Marshal(s.InputSchema)
	if string(b) != `{"type":"object"}` {
		t.Errorf("default schema = %s", b)
	}
	if a := s.Annotations; a != nil {
		t.Errorf("select annotations = %+v, want none: the page declared none", a)
	}

	sc.Drain()
	if err := ext.RemoveTools(sel.Ref()); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "select goes", bridgetest.Lacks("select"))

	sc.Drain()
	bank.Allowed = true
	if err := ext.UpdateTab(bank); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "transfer appears once its site is allowed", bridgetest.Has("transfer", "echo"))

	sc.Drain()
	if err := ext.AddTools(bridgetest.Tool(13, "deposit")); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "deposit appears", bridgetest.Has("deposit"))

	sc.Drain()
	if err := ext.RemoveTab(12); err != nil {
		t.Fatal(err)
	}
	tools = sc.AwaitChange(ctx, "tab 12's tools go", bridgetest.Lacks("echo"))
	if tools["transfer"] == nil || tools["deposit"] == nil {
		t.Errorf("tab 13's tools went too: %v", bridgetest.Names(tools))
	}
}

func TestCallRoundTrip(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.Handle("greet", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return json.RawMessage(`"hello there"`), nil
	})
	p.Handle("mcpstyle", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"slice 42 is not loaded"}],"isError":true}`), nil
	})
	p.Handle("throws", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return nil, protocol.Errorf(protocol.CodeToolError, "no slice 42")
	})
	p.Handle("vanished", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no such tool")
	})
	framed := bridgetest.Tool(12, "framed")
	framed.FrameID = 3
	framed.Origin = "https://widgets.example.com"
	p.Handle("framed", bridgetest.EchoHandler)
	tools := []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(12, "greet"), bridgetest.Tool(12, "mcpstyle"), bridgetest.Tool(12, "throws"), bridgetest.Tool(12, "vanished"), framed}
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, tools, []string{"echo", "greet", "mcpstyle", "throws", "vanished", "framed"}, 0)

	res := sc.Call(ctx, "echo", map[string]any{"id": 42, "label": "x"})
	var got bridgetest.Echoed
	bridgetest.Structured(t, res, &got)
	want := bridgetest.Echoed{Tab: 12, Frame: 0, Name: "echo", Args: map[string]any{"id": float64(42), "label": "x"}}
	if res.IsError || !cmp.Equal(got, want) {
		t.Errorf("echo = %+v (isError %v), want %+v", got, res.IsError, want)
	}
	if !strings.Contains(bridgetest.Text(res), `"args":{"id":42,"label":"x"}`) {
		t.Errorf("echo text = %s", bridgetest.Text(res))
	}

	// A traced call: every hop's mark, in order, in the result's _meta.
	res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}, Meta: mcp.Meta{shim.TraceMetaKey: true}})
	if err != nil || res.IsError {
		t.Fatalf("traced echo: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.Meta[shim.TraceMetaKey])
	var marks []protocol.Mark
	if err := json.Unmarshal(raw, &marks); err != nil {
		t.Fatalf("the trace in _meta: %v: %s", err, raw)
	}
	var hops []string
	for i, m := range marks {
		hops = append(hops, m.Hop)
		if i > 0 && m.At < marks[i-1].At {
			t.Errorf("mark %s (%f) before %s (%f)", m.Hop, m.At, marks[i-1].Hop, marks[i-1].At)
		}
	}
	if want := []string{"shim.in", "shim.out", "host.call", "fakeext", "host.answer", "shim.back", "shim.done"}; !slices.Equal(hops, want) {
		t.Errorf("trace hops = %v, want %v", hops, want)
	}
	if res = sc.Call(ctx, "echo", nil); res.Meta[shim.TraceMetaKey] != nil {
		t.Errorf("an untraced call has a trace: %v", res.Meta)
	}
	// The trace key's earlier name is still read, and answered under it.
	res, err = sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}, Meta: mcp.Meta{protocol.OldTraceMeta: true}})
	if err != nil || res.IsError || res.Meta[protocol.OldTraceMeta] == nil || res.Meta[shim.TraceMetaKey] != nil {
		t.Errorf("a call traced with %s: %v %v", protocol.OldTraceMeta, err, res)
	}

	res = sc.Call(ctx, "framed", nil)
	got = bridgetest.Echoed{}
	bridgetest.Structured(t, res, &got)
	if got.Tab != 12 || got.Frame != 3 || got.Name != "framed" || len(got.Args) != 0 {
		t.Errorf("framed = %+v", got)
	}
	tl := sc.Tools(ctx)["framed"]
	if !strings.HasPrefix(tl.Description, `[widgets.example.com · tab 12 frame 3 "Trace viewer"]`) {
		t.Errorf("framed description = %q", tl.Description)
	}

	res = sc.Call(ctx, "greet", nil)
	if res.IsError || bridgetest.Text(res) != "hello there" || res.StructuredContent != nil {
		t.Errorf("greet = %q, isError %v, structured %v", bridgetest.Text(res), res.IsError, res.StructuredContent)
	}
	res = sc.Call(ctx, "mcpstyle", nil)
	if !res.IsError || bridgetest.Text(res) != "slice 42 is not loaded" {
		t.Errorf("mcpstyle = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
	res = sc.Call(ctx, "throws", nil)
	if !res.IsError || !strings.Contains(bridgetest.Text(res), "no slice 42") {
		t.Errorf("throws = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
	res = sc.Call(ctx, "vanished", nil)
	if !res.IsError || bridgetest.Text(res) != "tool vanished is gone: the page unregistered it or navigated; list tools again. The page did not run this call." {
		t.Errorf("vanished = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
}

// Arguments off the tool's schema go to the page as they are, since the
// browser's own agent sends them so (Chromium 156 checks none of the
// schema: issue FID); the result is the page's, with a note that says
// what did not match. Arguments that are not an object never go.
func TestArgumentsOffTheSchemaReachThePage(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.Handle("count", bridgetest.EchoHandler)
	count := bridgetest.Tool(12, "count")
	count.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"code":{"type":"string","pattern":"^[1-12]:[0-5][0-9] (AM|PM)$","minLength":7},"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}}},"required":["n"]}`)
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Counter")}, []protocol.Tool{count}, []string{"count"}, 0)

	for _, tc := range []struct {
		args   map[string]any
		detail string
	}{
		{map[string]any{"n": "three"}, `field "n": got string, want integer`},
		{map[string]any{}, `missing properties: ["n"]`},
		{map[string]any{"n": 1, "opts": map[string]any{"deep": "yes"}}, `field "opts.deep"`},
		{map[string]any{"n": 1, "code": "8:00 PM"}, `field "code"`},
		{map[string]any{"n": 1, "code": "12:00"}, `field "code"`},
	} {
		res := sc.Call(ctx, "count", tc.args)
		mismatch, _ := res.Meta[results.MetaSchemaMismatch].(string)
		if res.IsError || len(res.Content) != 2 || !strings.Contains(mismatch, tc.detail) {
			t.Errorf("count(%v) = %q (isError %v, _meta %v), want the page's answer and a note with %s", tc.args, bridgetest.Text(res), res.IsError, res.Meta, tc.detail)
			continue
		}
		note := res.Content[1].(*mcp.TextContent).Text
		if !strings.HasPrefix(note, "(Note from the WebMCP bridge: these arguments do not match the tool's inputSchema: ") || !strings.Contains(note, tc.detail) {
			t.Errorf("count(%v): the note is %q", tc.args, note)
		}
	}
	// A call that fits has no note.
	res := sc.Call(ctx, "count", map[string]any{"n": 3, "code": "1:00 PM"})
	if res.IsError || len(res.Content) != 1 || res.Meta[results.MetaSchemaMismatch] != nil {
		t.Errorf("a call that fits the schema = %q (_meta %v), want the page's answer alone", bridgetest.Text(res), res.Meta)
	}
	var seen []string
	for _, c := range p.Calls() {
		seen = append(seen, string(c.Arguments))
	}
	if len(seen) != 6 || seen[3] != `{"code":"8:00 PM","n":1}` {
		t.Errorf("the page saw calls with %v, want all six as the agent sent them", seen)
	}
}

func TestTimeoutCancelsInThePage(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	b := bridgetest.NewBlocker()
	p.Handle("slow", b.Handler)
	sc, ext, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Slow")}, []protocol.Tool{bridgetest.Tool(12, "slow")}, []string{"slow"}, 300*time.Millisecond)

	res := sc.Call(ctx, "slow", nil)
	if !res.IsError || bridgetest.Text(res) != "timed out after 300ms; the call was cancelled in the page. The page may have run this call, in part or in whole: check the page's state before calling again." {
		t.Errorf("slow = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
	id := bridgetest.Await(ctx, t, b.Started, "the call to start")
	if _, err := ext.Await(ctx, bridgetest.IsCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}
	if got := bridgetest.Await(ctx, t, b.Cancelled, "the page's call to be cancelled"); got != id {
		t.Errorf("cancelled %s, want %s", got, id)
	}
}

func TestClientCancellationReachesThePage(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	b := bridgetest.NewBlocker()
	p.Handle("slow", b.Handler)
	sc, ext, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Slow")}, []protocol.Tool{bridgetest.Tool(12, "slow")}, []string{"slow"}, 0)

	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := sc.Session.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		errc <- err
	}()
	id := bridgetest.Await(ctx, t, b.Started, "the call to start")
	cancel() // the client sends notifications/cancelled
	if err := bridgetest.Await(ctx, t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool after cancel = %v, want context.Canceled", err)
	}
	if _, err := ext.Await(ctx, bridgetest.IsCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}
	bridgetest.Await(ctx, t, b.Cancelled, "the page's call to be cancelled")
	// The shim still works.
	if res := sc.Call(ctx, "list_tabs", nil); res.IsError || !strings.Contains(bridgetest.Text(res), `"title":"Slow"`) {
		t.Errorf("list_tabs after a cancelled call = %s", bridgetest.Text(res))
	}
}

func TestTwoShimsAtOnce(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	sc1, _, dir := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)
	sc2 := startShim(t, dir, 0)
	if !bridgetest.Has("echo")(sc2.Tools(ctx)) {
		sc2.AwaitChange(ctx, "echo appears in the second shim", bridgetest.Has("echo"))
	}

	const n = 10
	var wg sync.WaitGroup
	for who, sc := range map[string]*bridgetest.MCPClient{"A": sc1, "B": sc2} {
		for i := range n {
			wg.Go(func() {
				res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"who": who, "i": i}})
				if err != nil {
					t.Errorf("%s %d: %v", who, i, err)
					return
				}
				var got bridgetest.Echoed
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &got)
				if got.Args["who"] != who || got.Args["i"] != float64(i) {
					t.Errorf("shim %s call %d got the answer %s", who, i, bridgetest.Text(res))
				}
			})
		}
	}
	wg.Wait()
	sessions := map[string]int{}
	for _, c := range p.Calls() {
		sessions[strings.Split(c.ID, ".")[0]]++
	}
	if len(sessions) != 2 {
		t.Errorf("calls came from sessions %v, want two", sessions)
	}
}

func TestNameClashAndStability(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	sc, ext, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "One"), bridgetest.Tab(13, "Two")}, []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(13, "echo")}, []string{"echo", "echo_2"}, 0)
	tabOf := func(name string) int {
		t.Helper()
		var got bridgetest.Echoed
		bridgetest.Structured(t, sc.Call(ctx, name, nil), &got)
		return got.Tab
	}
	if tabOf("echo") != 12 || tabOf("echo_2") != 13 {
		t.Fatalf("echo → tab %d, echo_2 → tab %d; want 12, 13", tabOf("echo"), tabOf("echo_2"))
	}
	if d := sc.Tools(ctx)["echo_2"].Description; !strings.HasPrefix(d, `[localhost:8080 · tab 13 "Two"]`) {
		t.Errorf("echo_2 description = %q", d)
	}

	// The second goes: the first keeps its name.
	sc.Drain()
	ext.RemoveTools(protocol.ToolRef{TabID: 13, Name: "echo"})
	sc.AwaitChange(ctx, "echo_2 goes", bridgetest.Lacks("echo_2"))
	if tabOf("echo") != 12 {
		t.Error("echo no longer reaches tab 12")
	}

	// A third of the same site clashes: it gets the name tab 13's tool
	// gave back (the same app's tool, reopened). A tool of another site
	// gets a suffix no tool of this site ever had: an agent that
	// remembered a name never reaches another site through it. Then the
	// first goes, and the third keeps its name.
	sc.Drain()
	ext.UpdateTab(bridgetest.Tab(14, "Three"))
	ext.AddTools(bridgetest.Tool(14, "echo"))
	sc.AwaitChange(ctx, "tab 14's echo appears", bridgetest.Has("echo", "echo_2"))
	if tabOf("echo_2") != 14 {
		t.Errorf("echo_2 does not reach tab 14")
	}
	sc.Drain()
	other := bridgetest.Tab(15, "Elsewhere")
	other.URL, other.Origin = "http://127.0.0.1:9000/", "http://127.0.0.1:9000"
	ext.UpdateTab(other)
	foreign := bridgetest.Tool(15, "echo")
	foreign.Origin = other.Origin
	ext.AddTools(foreign)
	sc.AwaitChange(ctx, "tab 15's echo appears", bridgetest.Has("echo", "echo_2", "echo_3"))
	if tabOf("echo_3") != 15 {
		t.Errorf("echo_3 does not reach tab 15")
	}
	sc.Drain()
	ext.RemoveTab(12)
	tools := sc.AwaitChange(ctx, "tab 12's echo goes", bridgetest.Lacks("echo"))
	if tools["echo_2"] == nil || tabOf("echo_2") != 14 {
		t.Errorf("tab 14's echo did not keep its name: %v", bridgetest.Names(tools))
	}
	// Tab 15 (another site) goes and comes back: echo_3 again, never echo,
	// which tab 12's site held.
	sc.Drain()
	ext.RemoveTab(15)
	sc.AwaitChange(ctx, "tab 15's echo goes", bridgetest.Lacks("echo_3"))
	sc.Drain()
	other.ID, foreign.TabID = 16, 16
	ext.UpdateTab(other)
	ext.AddTools(foreign)
	tools = sc.AwaitChange(ctx, "tab 16's echo appears", bridgetest.Has("echo_2", "echo_3"))
	if tools["echo"] != nil || tabOf("echo_3") != 16 {
		t.Errorf("another site's reopened echo: %v", bridgetest.Names(tools))
	}
}

// TestNamesSurviveAHostRestart: colliding names stay with their tabs when
// the browser's host restarts and lists every tool at once, in another
// order than they first came.
func TestNamesSurviveAHostRestart(t *testing.T) {
	ctx := bridgetest.Context(t)
	p1 := bridgetest.NewPage()
	p1.Handle("dup", bridgetest.EchoHandler)
	tabs := []protocol.Tab{bridgetest.Tab(2, "B"), bridgetest.Tab(3, "C")}
	sc, ext1, dir := setup(t, p1, tabs, []protocol.Tool{bridgetest.Tool(3, "dup")}, []string{"dup"}, 0)
	sc.Drain()
	ext1.AddTools(bridgetest.Tool(2, "dup"))
	sc.AwaitChange(ctx, "tab 2's dup appears", bridgetest.Has("dup", "dup_2"))

	sc.Drain()
	if err := ext1.Kill(); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "the dead host's tools go", bridgetest.Lacks("dup", "dup_2"))
	p2 := bridgetest.NewPage()
	p2.Handle("dup", bridgetest.EchoHandler)
	ext2 := bridgetest.StartHost(t, dir, p2)
	sc.Drain()
	if err := ext2.SetState(tabs, []protocol.Tool{bridgetest.Tool(2, "dup"), bridgetest.Tool(3, "dup")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "the new host's tools appear", bridgetest.Has("dup", "dup_2"))
	for name, tab := range map[string]int{"dup": 3, "dup_2": 2} {
		var got bridgetest.Echoed
		bridgetest.Structured(t, sc.Call(ctx, name, nil), &got)
		if got.Tab != tab {
			t.Errorf("after the restart %s runs in tab %d, want tab %d as before", name, got.Tab, tab)
		}
	}
}

func TestNameSanitized(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.Handle("trace.select slice", bridgetest.EchoHandler)
	long := strings.Repeat("x", 70)
	p.Handle(long, bridgetest.EchoHandler)
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "trace.select slice"), bridgetest.Tool(12, long)}, []string{"trace_select_slice", long[:64]}, 0)
	for mcpName, pageName := range map[string]string{"trace_select_slice": "trace.select slice", long[:64]: long} {
		var got bridgetest.Echoed
		bridgetest.Structured(t, sc.Call(ctx, mcpName, map[string]any{"id": 1}), &got)
		if got.Name != pageName {
			t.Errorf("%s reached the page as %q, want %q", mcpName, got.Name, pageName)
		}
	}
}

func TestHostRestartRecovers(t *testing.T) {
	ctx := bridgetest.Context(t)
	p1 := bridgetest.NewPage()
	b := bridgetest.NewBlocker()
	p1.Handle("slow", b.Handler)
	tabs := []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}
	sc, ext1, dir := setup(t, p1, tabs, []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(12, "slow")}, []string{"echo", "slow"}, 0)

	// The host dies with a call under way: the call ends at once, the tools go.
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := sc.Session.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("slow: %v", err)
		}
		resc <- res
	}()
	bridgetest.Await(ctx, t, b.Started, "the slow call to start")
	sc.Drain()
	if err := ext1.Kill(); err != nil {
		t.Fatal(err)
	}
	if res := bridgetest.Await(ctx, t, resc, "the pending call's answer"); res == nil || !res.IsError || !strings.HasPrefix(bridgetest.Text(res), "browser disconnected: ") {
		t.Errorf("pending call after the host died = %+v", res)
	}
	sc.AwaitChange(ctx, "the dead host's tools go", bridgetest.Lacks("echo", "slow"))

	// A new host starts (the extension reconnected): the same shim picks it up.
	p2 := bridgetest.NewPage()
	ext2 := bridgetest.StartHost(t, dir, p2)
	sc.Drain()
	if err := ext2.SetState(tabs, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "the new host's tools appear", bridgetest.Has("echo"))
	res := sc.Call(ctx, "echo", map[string]any{"again": true})
	if res.IsError || len(p2.Calls()) != 1 {
		t.Errorf("echo through the new host = %q, page 2 saw %d calls", bridgetest.Text(res), len(p2.Calls()))
	}

	// The browser closes the host properly: its tools go too.
	sc.Drain()
	if err := ext2.Close(); err != nil {
		t.Errorf("host exit: %v", err)
	}
	sc.AwaitChange(ctx, "the closed host's tools go", bridgetest.Lacks("echo"))
	if res := sc.Call(ctx, "list_tabs", nil); !strings.Contains(bridgetest.Text(res), "no browser connected") {
		t.Errorf("list_tabs after the browser left = %s", bridgetest.Text(res))
	}
}

// BenchmarkCall measures a page tool call through the whole chain, with the
// shim in the test process: MCP client → Server (in-memory transport) →
// webmcp-host → fake extension, and back.
func BenchmarkCall(b *testing.B) {
	p := bridgetest.NewPage()
	sc, _, _ := setup(b, p, []protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)
	ctx := b.Context()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"id": 42}}
	for b.Loop() {
		res, err := sc.Session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %v", err, res)
		}
	}
}
