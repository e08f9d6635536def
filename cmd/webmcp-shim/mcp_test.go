package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/webmcp"
)

func TestInitializeWithoutBrowser(t *testing.T) {
	ctx := testContext(t)
	// The runtime directory does not even exist yet.
	sc := startShim(t, runtimeDir(t)+"/not-yet")
	init := sc.cs.InitializeResult()
	if init.ServerInfo.Name != "webmcp-shim" {
		t.Errorf("server name = %q", init.ServerInfo.Name)
	}
	if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want listChanged", init.Capabilities.Tools)
	}
	if got := names(sc.tools(ctx)); !cmp.Equal(got, []string{"get_ui_context", "list_tabs"}) {
		t.Errorf("tools = %v, want only list_tabs and get_ui_context", got)
	}
	res := sc.call(ctx, "list_tabs", nil)
	var out struct {
		Tabs []map[string]any `json:"tabs"`
		Note string           `json:"note"`
	}
	structured(t, res, &out)
	if res.IsError || len(out.Tabs) != 0 || !strings.Contains(out.Note, "no browser connected") {
		t.Errorf("list_tabs without a browser = %s", text(res))
	}
}

func TestToolsAppearAndDisappear(t *testing.T) {
	ctx := testContext(t)
	dir := runtimeDir(t)
	sc := startShim(t, dir)
	if got := names(sc.tools(ctx)); len(got) != 2 {
		t.Fatalf("tools before any browser = %v", got)
	}

	p := newPage()
	ext := startHost(t, dir, p)
	echo := tool(12, "echo")
	echo.Title = "Echo"
	echo.InputSchema = json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string","description":"what to say"}},"required":["msg"]}`)
	yes, no := true, false
	echo.Annotations = &webmcp.Annotations{ReadOnlyHint: &yes, IdempotentHint: &yes, OpenWorldHint: &no}
	sel := tool(12, "select")
	bank := tab(13, "Bank")
	bank.Allowed = false
	if err := ext.SetState([]webmcp.Tab{tab(12, "Trace viewer"), bank}, []webmcp.Tool{echo, sel, tool(13, "transfer")}); err != nil {
		t.Fatal(err)
	}
	tools := sc.awaitChange(ctx, "echo and select appear", has("echo", "select"))
	if tools["transfer"] != nil {
		t.Error("a tool of a tab that is not allowed was exposed")
	}

	e := tools["echo"]
	if want := `[localhost:8080 · tab 12 "Trace viewer"] Does echo.`; e.Description != want {
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
	if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title != "Echo" {
		t.Errorf("echo annotations = %+v", a)
	}
	s := tools["select"]
	b, _ = json.Marshal(s.InputSchema)
	if string(b) != `{"type":"object"}` {
		t.Errorf("default schema = %s", b)
	}
	if a := s.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint != nil {
		t.Errorf("select annotations = %+v, want destructive (not read-only)", a)
	}

	sc.drain()
	if err := ext.RemoveTools(sel.Ref()); err != nil {
		t.Fatal(err)
	}
	sc.awaitChange(ctx, "select goes", lacks("select"))

	sc.drain()
	bank.Allowed = true
	if err := ext.UpdateTab(bank); err != nil {
		t.Fatal(err)
	}
	sc.awaitChange(ctx, "transfer appears once its site is allowed", has("transfer", "echo"))

	sc.drain()
	if err := ext.AddTools(tool(13, "deposit")); err != nil {
		t.Fatal(err)
	}
	sc.awaitChange(ctx, "deposit appears", has("deposit"))

	sc.drain()
	if err := ext.RemoveTab(12); err != nil {
		t.Fatal(err)
	}
	tools = sc.awaitChange(ctx, "tab 12's tools go", lacks("echo"))
	if tools["transfer"] == nil || tools["deposit"] == nil {
		t.Errorf("tab 13's tools went too: %v", names(tools))
	}
}

// setup starts a host with page p, the given tabs and tools, and a shim
// whose tools include want.
func setup(t testing.TB, p *page, tabs []webmcp.Tab, tools []webmcp.Tool, want []string, shimArgs ...string) (*shimClient, *webmcpExt) {
	t.Helper()
	ctx := testContext(t)
	dir := runtimeDir(t)
	ext := startHost(t, dir, p)
	sc := startShim(t, dir, shimArgs...)
	if err := ext.SetState(tabs, tools); err != nil {
		t.Fatal(err)
	}
	if !has(want...)(sc.tools(ctx)) {
		sc.awaitChange(ctx, fmt.Sprintf("%v appear", want), has(want...))
	}
	return sc, &webmcpExt{ext, dir}
}

func TestCallRoundTrip(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	p.handle("greet", func(context.Context, *webmcp.Message) (json.RawMessage, *webmcp.Error) {
		return json.RawMessage(`"hello there"`), nil
	})
	p.handle("mcpstyle", func(context.Context, *webmcp.Message) (json.RawMessage, *webmcp.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"slice 42 is not loaded"}],"isError":true}`), nil
	})
	p.handle("throws", func(context.Context, *webmcp.Message) (json.RawMessage, *webmcp.Error) {
		return nil, webmcp.Errorf(webmcp.CodeToolError, "no slice 42")
	})
	p.handle("vanished", func(context.Context, *webmcp.Message) (json.RawMessage, *webmcp.Error) {
		return nil, webmcp.Errorf(webmcp.CodeNotFound, "no such tool")
	})
	framed := tool(12, "framed")
	framed.FrameID = 3
	framed.Origin = "https://widgets.example.com"
	p.handle("framed", echoHandler)
	tools := []webmcp.Tool{tool(12, "echo"), tool(12, "greet"), tool(12, "mcpstyle"), tool(12, "throws"), tool(12, "vanished"), framed}
	sc, _ := setup(t, p, []webmcp.Tab{tab(12, "Trace viewer")}, tools, []string{"echo", "greet", "mcpstyle", "throws", "vanished", "framed"})

	res := sc.call(ctx, "echo", map[string]any{"id": 42, "label": "x"})
	var got echoed
	structured(t, res, &got)
	want := echoed{Tab: 12, Frame: 0, Name: "echo", Args: map[string]any{"id": float64(42), "label": "x"}}
	if res.IsError || !cmp.Equal(got, want) {
		t.Errorf("echo = %+v (isError %v), want %+v", got, res.IsError, want)
	}
	if !strings.Contains(text(res), `"args":{"id":42,"label":"x"}`) {
		t.Errorf("echo text = %s", text(res))
	}

	res = sc.call(ctx, "framed", nil)
	got = echoed{}
	structured(t, res, &got)
	if got.Tab != 12 || got.Frame != 3 || got.Name != "framed" || len(got.Args) != 0 {
		t.Errorf("framed = %+v", got)
	}
	tl := sc.tools(ctx)["framed"]
	if !strings.HasPrefix(tl.Description, `[widgets.example.com · tab 12 frame 3 "Trace viewer"]`) {
		t.Errorf("framed description = %q", tl.Description)
	}

	res = sc.call(ctx, "greet", nil)
	if res.IsError || text(res) != "hello there" || res.StructuredContent != nil {
		t.Errorf("greet = %q, isError %v, structured %v", text(res), res.IsError, res.StructuredContent)
	}
	res = sc.call(ctx, "mcpstyle", nil)
	if !res.IsError || text(res) != "slice 42 is not loaded" {
		t.Errorf("mcpstyle = %q, isError %v", text(res), res.IsError)
	}
	res = sc.call(ctx, "throws", nil)
	if !res.IsError || !strings.Contains(text(res), "no slice 42") {
		t.Errorf("throws = %q, isError %v", text(res), res.IsError)
	}
	res = sc.call(ctx, "vanished", nil)
	if !res.IsError || text(res) != "tool vanished is gone: the page unregistered it or navigated; list tools again" {
		t.Errorf("vanished = %q, isError %v", text(res), res.IsError)
	}
}

func TestInvalidArgumentsNeverReachThePage(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	p.handle("count", echoHandler)
	count := tool(12, "count")
	count.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}}},"required":["n"]}`)
	sc, _ := setup(t, p, []webmcp.Tab{tab(12, "Counter")}, []webmcp.Tool{count}, []string{"count"})

	for _, tc := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"n": "three"}, `"n"`},
		{map[string]any{}, `"n"`},
		{map[string]any{"n": 1, "opts": map[string]any{"deep": "yes"}}, `"opts.deep"`},
	} {
		res := sc.call(ctx, "count", tc.args)
		if !res.IsError || !strings.Contains(text(res), "invalid arguments for tool count") || !strings.Contains(text(res), tc.field) {
			t.Errorf("count(%v) = %q (isError %v), want an error naming %s", tc.args, text(res), res.IsError, tc.field)
		}
	}
	// A valid call gets through; calls are delivered in order, so had an
	// invalid one been sent, the page would have seen it first.
	res := sc.call(ctx, "count", map[string]any{"n": 3})
	if res.IsError {
		t.Fatalf("valid call failed: %s", text(res))
	}
	calls := p.Calls()
	if len(calls) != 1 || string(calls[0].Arguments) != `{"n":3}` {
		var seen []string
		for _, c := range calls {
			seen = append(seen, string(c.Arguments))
		}
		t.Errorf("the page saw calls with %v, want only {\"n\":3}", seen)
	}
}

// blocker is a page tool that runs until it is cancelled.
type blocker struct {
	started   chan string // call ids
	cancelled chan string // call ids whose context ended
}

func newBlocker() *blocker {
	return &blocker{started: make(chan string, 10), cancelled: make(chan string, 10)}
}

func (b *blocker) handler(ctx context.Context, call *webmcp.Message) (json.RawMessage, *webmcp.Error) {
	b.started <- call.ID
	<-ctx.Done()
	b.cancelled <- call.ID
	return nil, nil
}

func await[T any](ctx context.Context, t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
	}
	panic("unreachable")
}

func isCancel(id string) func(*webmcp.Message) bool {
	return func(m *webmcp.Message) bool { return m.Type == webmcp.TypeCancel && m.ID == id }
}

func TestTimeoutCancelsInThePage(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	b := newBlocker()
	p.handle("slow", b.handler)
	sc, ext := setup(t, p, []webmcp.Tab{tab(12, "Slow")}, []webmcp.Tool{tool(12, "slow")}, []string{"slow"}, "--timeout", "300ms")

	res := sc.call(ctx, "slow", nil)
	if !res.IsError || text(res) != "timed out after 300ms; the call was cancelled in the page" {
		t.Errorf("slow = %q, isError %v", text(res), res.IsError)
	}
	id := await(ctx, t, b.started, "the call to start")
	if _, err := ext.Await(ctx, isCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}
	if got := await(ctx, t, b.cancelled, "the page's call to be cancelled"); got != id {
		t.Errorf("cancelled %s, want %s", got, id)
	}
}

func TestClientCancellationReachesThePage(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	b := newBlocker()
	p.handle("slow", b.handler)
	sc, ext := setup(t, p, []webmcp.Tab{tab(12, "Slow")}, []webmcp.Tool{tool(12, "slow")}, []string{"slow"})

	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := sc.cs.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		errc <- err
	}()
	id := await(ctx, t, b.started, "the call to start")
	cancel() // the client sends notifications/cancelled
	if err := await(ctx, t, errc, "CallTool to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool after cancel = %v, want context.Canceled", err)
	}
	if _, err := ext.Await(ctx, isCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}
	await(ctx, t, b.cancelled, "the page's call to be cancelled")
	// The shim still works.
	if res := sc.call(ctx, "list_tabs", nil); res.IsError || !strings.Contains(text(res), `"title":"Slow"`) {
		t.Errorf("list_tabs after a cancelled call = %s", text(res))
	}
}

func TestTwoShimsAtOnce(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	sc1, ext := setup(t, p, []webmcp.Tab{tab(12, "Trace viewer")}, []webmcp.Tool{tool(12, "echo")}, []string{"echo"})
	sc2 := startShim(t, ext.dir)
	if !has("echo")(sc2.tools(ctx)) {
		sc2.awaitChange(ctx, "echo appears in the second shim", has("echo"))
	}

	const n = 10
	var wg sync.WaitGroup
	for who, sc := range map[string]*shimClient{"A": sc1, "B": sc2} {
		for i := range n {
			wg.Go(func() {
				res, err := sc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"who": who, "i": i}})
				if err != nil {
					t.Errorf("%s %d: %v", who, i, err)
					return
				}
				var got echoed
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &got)
				if got.Args["who"] != who || got.Args["i"] != float64(i) {
					t.Errorf("shim %s call %d got the answer %s", who, i, text(res))
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
	ctx := testContext(t)
	p := newPage()
	sc, ext := setup(t, p, []webmcp.Tab{tab(12, "One"), tab(13, "Two")}, []webmcp.Tool{tool(12, "echo"), tool(13, "echo")}, []string{"echo", "echo_2"})
	tabOf := func(name string) int {
		t.Helper()
		var got echoed
		structured(t, sc.call(ctx, name, nil), &got)
		return got.Tab
	}
	if tabOf("echo") != 12 || tabOf("echo_2") != 13 {
		t.Fatalf("echo → tab %d, echo_2 → tab %d; want 12, 13", tabOf("echo"), tabOf("echo_2"))
	}
	if d := sc.tools(ctx)["echo_2"].Description; !strings.HasPrefix(d, `[localhost:8080 · tab 13 "Two"]`) {
		t.Errorf("echo_2 description = %q", d)
	}

	// The second goes: the first keeps its name.
	sc.drain()
	ext.RemoveTools(webmcp.ToolRef{TabID: 13, Name: "echo"})
	sc.awaitChange(ctx, "echo_2 goes", lacks("echo_2"))
	if tabOf("echo") != 12 {
		t.Error("echo no longer reaches tab 12")
	}

	// A third clashes: it gets the free suffix; then the first goes, and the
	// third keeps its name.
	sc.drain()
	ext.UpdateTab(tab(14, "Three"))
	ext.AddTools(tool(14, "echo"))
	sc.awaitChange(ctx, "tab 14's echo appears", has("echo", "echo_2"))
	sc.drain()
	ext.RemoveTab(12)
	tools := sc.awaitChange(ctx, "tab 12's echo goes", lacks("echo"))
	if tools["echo_2"] == nil || tabOf("echo_2") != 14 {
		t.Errorf("tab 14's echo did not keep its name: %v", names(tools))
	}
}

func TestNameSanitized(t *testing.T) {
	ctx := testContext(t)
	p := newPage()
	p.handle("trace.select slice", echoHandler)
	long := strings.Repeat("x", 70)
	p.handle(long, echoHandler)
	sc, _ := setup(t, p, []webmcp.Tab{tab(12, "Trace viewer")}, []webmcp.Tool{tool(12, "trace.select slice"), tool(12, long)}, []string{"trace_select_slice", long[:64]})
	for mcpName, pageName := range map[string]string{"trace_select_slice": "trace.select slice", long[:64]: long} {
		var got echoed
		structured(t, sc.call(ctx, mcpName, map[string]any{"id": 1}), &got)
		if got.Name != pageName {
			t.Errorf("%s reached the page as %q, want %q", mcpName, got.Name, pageName)
		}
	}
}

func TestHostRestartRecovers(t *testing.T) {
	ctx := testContext(t)
	p1 := newPage()
	b := newBlocker()
	p1.handle("slow", b.handler)
	tabs := []webmcp.Tab{tab(12, "Trace viewer")}
	sc, ext1 := setup(t, p1, tabs, []webmcp.Tool{tool(12, "echo"), tool(12, "slow")}, []string{"echo", "slow"})

	// The host dies with a call under way: the call ends at once, the tools go.
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := sc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("slow: %v", err)
		}
		resc <- res
	}()
	await(ctx, t, b.started, "the slow call to start")
	sc.drain()
	if err := syscall.Kill(ext1.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if res := await(ctx, t, resc, "the pending call's answer"); res == nil || !res.IsError || !strings.HasPrefix(text(res), "browser disconnected: ") {
		t.Errorf("pending call after the host died = %+v", res)
	}
	sc.awaitChange(ctx, "the dead host's tools go", lacks("echo", "slow"))

	// A new host starts (the extension reconnected): the same shim picks it up.
	p2 := newPage()
	ext2 := startHost(t, ext1.dir, p2)
	sc.drain()
	if err := ext2.SetState(tabs, []webmcp.Tool{tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.awaitChange(ctx, "the new host's tools appear", has("echo"))
	res := sc.call(ctx, "echo", map[string]any{"again": true})
	if res.IsError || len(p2.Calls()) != 1 {
		t.Errorf("echo through the new host = %q, page 2 saw %d calls", text(res), len(p2.Calls()))
	}

	// The browser closes the host properly: its tools go too.
	sc.drain()
	if err := ext2.Close(); err != nil {
		t.Errorf("host exit: %v", err)
	}
	sc.awaitChange(ctx, "the closed host's tools go", lacks("echo"))
	if res := sc.call(ctx, "list_tabs", nil); !strings.Contains(text(res), "no browser connected") {
		t.Errorf("list_tabs after the browser left = %s", text(res))
	}
}

// BenchmarkCall measures a page tool call through the whole chain: MCP
// client → webmcp-shim → webmcp-host → fake extension, and back.
func BenchmarkCall(b *testing.B) {
	p := newPage()
	sc, _ := setup(b, p, []webmcp.Tab{tab(12, "Trace viewer")}, []webmcp.Tool{tool(12, "echo")}, []string{"echo"})
	ctx := b.Context()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"id": 42}}
	for b.Loop() {
		res, err := sc.cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %v", err, res)
		}
	}
}
