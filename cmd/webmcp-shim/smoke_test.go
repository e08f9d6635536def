package main_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// The binary serves MCP on stdio before any browser is there.
func TestInitializeWithoutBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	// The runtime directory does not even exist yet.
	sc := startShim(t, bridgetest.RuntimeDir(t)+"/not-yet")
	init := sc.Session.InitializeResult()
	if init.ServerInfo.Name != "webmcp-shim" {
		t.Errorf("server name = %q", init.ServerInfo.Name)
	}
	if got := bridgetest.Names(sc.Tools(ctx)); !cmp.Equal(got, []string{"close_tab", "focus_tab", "get_ui_context", "list_tabs", "open_page"}) {
		t.Errorf("tools = %v, want only the bridge's: list_tabs, get_ui_context, open_page, focus_tab, close_tab", got)
	}
	if res := sc.Call(ctx, "list_tabs", nil); res.IsError || !strings.Contains(bridgetest.Text(res), "no browser connected") {
		t.Errorf("list_tabs without a browser = %s", bridgetest.Text(res))
	}
}

// A call goes through both binaries and back; the binary's --timeout
// reaches the server; a host that dies takes its tools along.
func TestCallThroughTheBinaries(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	b := bridgetest.NewBlocker()
	p.Handle("slow", b.Handler)
	ext := bridgetest.StartHost(t, dir, p)
	sc := startShim(t, dir, "--timeout", "300ms")
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(12, "slow")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "echo and slow appear", bridgetest.Has("echo", "slow"))

	res := sc.Call(ctx, "echo", map[string]any{"id": 42})
	var got bridgetest.Echoed
	bridgetest.Structured(t, res, &got)
	if res.IsError || got.Tab != 12 || got.Name != "echo" || got.Args["id"] != float64(42) {
		t.Errorf("echo = %s", bridgetest.Text(res))
	}
	res = sc.Call(ctx, "slow", nil)
	if !res.IsError || bridgetest.Text(res) != "timed out after 300ms; the call was cancelled in the page. The page may have run this call, in part or in whole: check the page's state before calling again." {
		t.Errorf("slow = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
	id := bridgetest.Await(ctx, t, b.Started, "the slow call to start")
	if _, err := ext.Await(ctx, bridgetest.IsCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}

	sc.Drain()
	if err := ext.Kill(); err != nil {
		t.Fatal(err)
	}
	sc.AwaitChange(ctx, "the dead host's tools go", bridgetest.Lacks("echo", "slow"))
}

// Exit codes as the binary returns them, with and without a browser.
func TestCLISmoke(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	r := runCLI(ctx, t, dir, "", "--help")
	r.expect(t, "--help", 0)
	if !strings.Contains(r.stdout, "webmcp-shim status") {
		t.Errorf("--help:\n%s", r.stdout)
	}
	runCLI(ctx, t, dir, "", "frobnicate").expect(t, "unknown command", 2)
	runCLI(ctx, t, dir, "", "call", "echo", `{"a":`).expect(t, "call with bad JSON", 2)
	runCLI(ctx, t, dir, "", "context", "--hook", "cursor").expect(t, "context with bad usage (never 2: it would block the prompt)", 1)
	r = runCLI(ctx, t, dir, "", "call", "echo", `{}`)
	r.expect(t, "call without a browser", 1)
	if !strings.Contains(r.stderr, "no browser connected") {
		t.Errorf("call without a browser: %q", r.stderr)
	}

	c := bridgetest.TraceContext("Selected slice CommitNavigation", time.Now())
	p := bridgetest.NewPage()
	p.HandleRequest(protocol.MethodSampleContext, bridgetest.SampleWith(nil, func() protocol.Context { return c }))
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SendState(&protocol.Snapshot{Tabs: []protocol.Tab{bridgetest.FocusedTab()}, Tools: []protocol.Tool{bridgetest.Tool(12, "echo")}, Contexts: []protocol.Context{c}}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	r = runCLI(ctx, t, dir, "", "call", "echo", `{"x":1}`)
	r.expect(t, "call echo", 0)
	if strings.TrimSpace(r.stdout) != `{"tab":12,"frame":0,"name":"echo","args":{"x":1}}` {
		t.Errorf("call echo printed %q", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "context", "--wait", "10s", "--hook", "claude")
	r.expect(t, "context --hook claude", 0)
	var hook struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &hook); err != nil || !strings.Contains(hook.HookSpecificOutput.AdditionalContext, "<ui_context>\ntab 12 ") {
		t.Errorf("context --hook claude printed %q (%v)", r.stdout, err)
	}
}

// BenchmarkCall measures a page tool call through the whole chain: MCP
// client → webmcp-shim → webmcp-host → fake extension, and back.
func BenchmarkCall(b *testing.B) {
	dir := bridgetest.RuntimeDir(b)
	ext := bridgetest.StartHost(b, dir, bridgetest.NewPage())
	sc := startShim(b, dir)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	sc.AwaitTools(ctx, "echo appears", bridgetest.Has("echo"))
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"id": 42}}
	for b.Loop() {
		res, err := sc.Session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %v", err, res)
		}
	}
}

// BenchmarkContextCLI measures webmcp-shim context --hook claude as a
// prompt hook runs it: a process start, connecting to the host, a fresh
// sample, the block. It must stay well under 100 ms.
func BenchmarkContextCLI(b *testing.B) {
	dir := bridgetest.RuntimeDir(b)
	c := bridgetest.TraceContext(`Selected slice "CommitNavigation" (12.3 ms on CrBrowserMain)`, time.Now())
	p := bridgetest.NewPage()
	p.HandleRequest(protocol.MethodSampleContext, bridgetest.SampleWith(nil, func() protocol.Context { return c }))
	ext := bridgetest.StartHost(b, dir, p)
	if err := ext.SendState(&protocol.Snapshot{Tabs: []protocol.Tab{bridgetest.FocusedTab()}, Tools: []protocol.Tool{}, Contexts: []protocol.Context{c}}); err != nil {
		b.Fatal(err)
	}
	env := bridgetest.ChildEnv(dir)
	bin := shimBin(b)
	for b.Loop() {
		cmd := exec.Command(bin, "context", "--hook", "claude")
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), "CommitNavigation") {
			b.Fatalf("context: %v, %q", err, out)
		}
	}
}
