package shim_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// TestArgumentsOverTheLimit: a call whose arguments are over the bridge's
// limit is refused by the shim with an error that names both sizes and
// says the page did not run it; nothing goes to the browser, the host
// keeps the shim's connection, and the next call goes through. Arguments
// of exactly the limit reach the page. The limit is lowered to 64 KiB for
// the test (protocol.MaxArguments, 63 MiB, takes minutes to move under the
// race detector); that the shim's own limit is protocol.MaxArguments is
// checked first.
func TestArgumentsOverTheLimit(t *testing.T) {
	const limit = 64 << 10
	if was := shim.SetMaxArguments(t, limit); was != protocol.MaxArguments || protocol.MaxArguments != 63<<20 {
		t.Fatalf("the shim's limit of arguments is %d, protocol.MaxArguments %d: want both 63 MiB (%d)", was, protocol.MaxArguments, 63<<20)
	}
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	p.Handle("size", func(_ context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
		return json.RawMessage(strconv.Itoa(len(call.Arguments))), nil
	})
	p.Handle("echo", bridgetest.EchoHandler)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	srv := shim.New(shim.Options{Dir: dir, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	sc := bridgetest.ServeMCP(t, srv.Serve)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace")}, []protocol.Tool{bridgetest.Tool(12, "size"), bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "size and echo appear", bridgetest.Has("size", "echo"))

	// {"data":"xxx…"}: 11 bytes around the string; 65 KiB in all.
	res := sc.Call(ctx, "size", map[string]any{"data": strings.Repeat("x", 65<<10-11)})
	text := bridgetest.Text(res)
	if !res.IsError || !strings.Contains(text, "the arguments are 65.0 KiB of JSON (66560 bytes), over the bridge's limit of 64.0 KiB (65536 bytes)") ||
		strings.Count(text, "The page did not run this call.") != 1 || strings.Contains(text, "browser went away") {
		t.Errorf("size with 65 KiB of arguments = %q (%+v), want an error naming both sizes", text, res)
	}
	if m := res.Meta; m[results.MetaCode] != results.CodeTooLarge || m[results.MetaPageRan] != string(results.NotRun) {
		t.Errorf("meta = %v, want too_large, not run", m)
	}
	if calls := p.Calls(); len(calls) != 0 {
		t.Errorf("the page saw %d calls, want none", len(calls))
	}

	res = sc.Call(ctx, "size", map[string]any{"data": strings.Repeat("x", limit-11)})
	if res.IsError || bridgetest.Text(res) != strconv.Itoa(limit) {
		t.Errorf("size with arguments of the limit = %q, want %d", bridgetest.Text(res), limit)
	}
	if res := sc.Call(ctx, "echo", map[string]any{"a": 1}); res.IsError {
		t.Errorf("echo after the refusal = %+v", res)
	}
}
