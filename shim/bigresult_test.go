package shim_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// TestBigResultStaysOutOfTheContext: a page result over the threshold
// reaches the agent as a file's path, size and first lines, with a
// resource link; the file holds it byte for byte.
func TestBigResultStaysOutOfTheContext(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	big := strings.Repeat("0123456789abcdef\n", 20000) // 340,000 bytes
	p.Handle("dump", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		b, _ := json.Marshal(big)
		return b, nil
	})
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	results := t.TempDir() + "/results"
	srv := shim.New(shim.Options{Dir: dir, ResultDir: results, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	sc := bridgetest.ServeMCP(t, srv.Serve)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace")}, []protocol.Tool{bridgetest.Tool(12, "dump"), bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "dump appears", bridgetest.Has("dump", "echo"))

	res := sc.Call(ctx, "dump", nil)
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("dump = %+v, want a text and a resource link", res)
	}
	msg := res.Content[0].(*mcp.TextContent).Text
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || !strings.HasPrefix(link.URI, "file://"+results+"/") {
		t.Fatalf("second content %+v, want a resource link into %s", res.Content[1], results)
	}
	path := strings.TrimPrefix(link.URI, "file://")
	if !strings.Contains(msg, path) || !strings.Contains(msg, "332 KiB") || !strings.Contains(msg, "0123456789abcdef\n0123456789abcdef") || len(msg) > 4<<10 {
		t.Errorf("text (%d bytes) %q...: want the path, the size and the first lines, briefly", len(msg), msg[:min(len(msg), 300)])
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != big {
		t.Errorf("the file holds %d bytes (%v), want the %d of the result", len(got), err, len(big))
	}
	// A small result is as it was.
	if res := sc.Call(ctx, "echo", map[string]any{"a": 1}); res.IsError || len(res.Content) != 1 {
		t.Errorf("echo = %+v", res)
	}
}
