package shim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/schemas"
)

func quietServer(t *testing.T) *Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := New(Options{Dir: t.TempDir(), Logger: log, BrowserWait: time.Millisecond})
	t.Cleanup(s.Close)
	return s
}

// A schema that the SDK refuses (it panics in AddTool) must not take the
// shim down: the tool is exposed with the default schema.
func TestSchemaTheSDKRefuses(t *testing.T) {
	s := quietServer(t)
	bad := json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`)
	v, err := schemas.Resolve(bad)
	if err != nil {
		t.Fatal(err)
	}
	pt := &pageTool{name: "headers", tool: protocol.Tool{TabID: 1, Name: "headers"}, mcpTool: &mcp.Tool{Name: "headers", InputSchema: bad}, validator: v}
	s.mu.Lock()
	s.addTool(toolKey{"connection 1", pt.tool.Ref()}, pt)
	s.mu.Unlock()
	if pt.validator != nil {
		t.Error("the tool kept a validator for a schema it does not advertise")
	}

	ctx := t.Context()
	ct, st := mcp.NewInMemoryTransports()
	go s.mcp.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tl := range res.Tools {
		if tl.Name == "headers" {
			found = true
			if b, _ := json.Marshal(tl.InputSchema); string(b) != `{"type":"object"}` {
				t.Errorf("schema = %s, want the default", b)
			}
		}
	}
	if !found {
		t.Errorf("the tool is not listed: %+v", res.Tools)
	}
}

func TestCallToolUnknown(t *testing.T) {
	s := quietServer(t)
	_, err := s.CallTool(context.Background(), "nope", nil)
	if !errors.Is(err, ErrNoTool) {
		t.Errorf("CallTool(nope) = %v, want ErrNoTool", err)
	}
	res, err := s.CallTool(context.Background(), "list_tabs", nil)
	if err != nil || res.IsError {
		t.Fatalf("list_tabs = %+v, %v", res, err)
	}
	if got := res.StructuredContent.(json.RawMessage); string(got) != `{"tabs":[],"note":"no browser connected: open Chrome/Chromium with the WebMCP bridge extension installed (see README)"}` {
		t.Errorf("list_tabs = %s", got)
	}
}
