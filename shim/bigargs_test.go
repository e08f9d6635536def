package shim_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// TestArgumentsOverTheLimit: a call whose arguments are over
// webmcp.MaxArguments is refused by the shim with an error that names both
// sizes and says the page did not run it; nothing goes to the browser, the
// host keeps the shim's connection, and the next call goes through.
// Arguments of exactly the limit reach the page.
func TestArgumentsOverTheLimit(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.Handle("size", func(_ context.Context, call *webmcp.Message) (json.RawMessage, *webmcp.Error) {
		return json.RawMessage(strconv.Itoa(len(call.Arguments))), nil
	})
	p.Handle("echo", bridgetest.EchoHandler)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	// An MCP transport that takes such a message: stdio and HTTP refuse
	// one over 16 MiB before the shim sees it (shim/stdio).
	srv := shim.New(shim.Options{Dir: dir, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	sc := bridgetest.ServeMCPUncapped(t, srv.Serve)
	if err := ext.SetState([]webmcp.Tab{bridgetest.Tab(12, "Trace")}, []webmcp.Tool{bridgetest.Tool(12, "size"), bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "size and echo appear", bridgetest.Has("size", "echo"))

	// {"data":"xxx…"}: 11 bytes around the string. 65 MiB, as a person
	// sent: the host would have dropped the shim's link.
	over := map[string]any{"data": strings.Repeat("x", 65<<20-11)}
	res := sc.Call(ctx, "size", over)
	text := bridgetest.Text(res)
	if !res.IsError || !strings.Contains(text, "the arguments are 65.0 MiB of JSON (68157440 bytes), over the bridge's limit of 63.0 MiB (66060288 bytes)") ||
		strings.Count(text, "The page did not run this call.") != 1 || strings.Contains(text, "browser went away") {
		t.Errorf("size with 65 MiB of arguments = %q (%+v), want an error naming both sizes", text, res)
	}
	if m := res.Meta; m[results.MetaCode] != results.CodeTooLarge || m[results.MetaPageRan] != string(results.NotRun) {
		t.Errorf("meta = %v, want too_large, not run", m)
	}
	if calls := p.Calls(); len(calls) != 0 {
		t.Errorf("the page saw %d calls, want none", len(calls))
	}
	over = nil

	res = sc.Call(ctx, "size", map[string]any{"data": strings.Repeat("x", webmcp.MaxArguments-11)})
	if res.IsError || bridgetest.Text(res) != strconv.Itoa(webmcp.MaxArguments) {
		t.Errorf("size with arguments of the limit = %q, want %d", bridgetest.Text(res), webmcp.MaxArguments)
	}
	if res := sc.Call(ctx, "echo", map[string]any{"a": 1}); res.IsError {
		t.Errorf("echo after the refusal = %+v", res)
	}
}
