package bridgetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the MCP version the test clients ask for.
const ProtocolVersion = "2025-11-25"

// ClientName and ClientVersion are what the test's MCP client says it is
// in initialize.
const (
	ClientName    = "bridgetest"
	ClientVersion = "1"
)

// MCPClient is an MCP client connected to a shim, as an agent would be.
type MCPClient struct {
	t testing.TB
	// Session is the client's session.
	Session *mcp.ClientSession
	// Changed gets one value per notifications/tools/list_changed.
	Changed chan struct{}
	// Updated gets the URI of each notifications/resources/updated.
	Updated chan string
}

// ConnectMCP connects an MCP client over transport (e.g. one of
// mcp.NewInMemoryTransports, or an mcp.CommandTransport), asking for
// [ProtocolVersion]. The session closes when the test ends.
func ConnectMCP(t testing.TB, transport mcp.Transport) *MCPClient {
	t.Helper()
	c := &MCPClient{t: t, Changed: make(chan struct{}, 100), Updated: make(chan string, 100)}
	client := mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: ClientVersion}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.Changed <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case c.Updated <- req.Params.URI:
			default:
			}
		},
	})
	cs, err := client.Connect(Context(t), transport, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		t.Fatalf("connecting an MCP client: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	c.Session = cs
	return c
}

// Drain forgets the list_changed notifications received so far.
func (c *MCPClient) Drain() {
	for {
		select {
		case <-c.Changed:
		default:
			return
		}
	}
}

// Tools lists the tools by name.
func (c *MCPClient) Tools(ctx context.Context) map[string]*mcp.Tool {
	c.t.Helper()
	res, err := c.Session.ListTools(ctx, nil)
	if err != nil {
		c.t.Fatalf("tools/list: %v", err)
	}
	m := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

// AwaitChange waits for a list_changed notification after which the tool
// list satisfies ok, and returns that list.
func (c *MCPClient) AwaitChange(ctx context.Context, what string, ok func(map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	c.t.Helper()
	var last map[string]*mcp.Tool
	for {
		select {
		case <-c.Changed:
		case <-ctx.Done():
			c.t.Fatalf("no list_changed after which %s; last tools: %v", what, Names(last))
		}
		last = c.Tools(ctx)
		if ok(last) {
			return last
		}
	}
}

// AwaitTools returns the tool list once it satisfies ok: at once if it
// does, else after the list_changed that makes it so.
func (c *MCPClient) AwaitTools(ctx context.Context, what string, ok func(map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	c.t.Helper()
	if tools := c.Tools(ctx); ok(tools) {
		return tools
	}
	return c.AwaitChange(ctx, what, ok)
}

// Call calls a tool and fails the test on a protocol error.
func (c *MCPClient) Call(ctx context.Context, name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.Session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// Names are the tools' names, sorted.
func Names(m map[string]*mcp.Tool) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Has matches a tool list with every one of names.
func Has(names ...string) func(map[string]*mcp.Tool) bool {
	return func(m map[string]*mcp.Tool) bool {
		for _, n := range names {
			if m[n] == nil {
				return false
			}
		}
		return true
	}
}

// Lacks matches a tool list with none of names.
func Lacks(names ...string) func(map[string]*mcp.Tool) bool {
	return func(m map[string]*mcp.Tool) bool {
		for _, n := range names {
			if m[n] != nil {
				return false
			}
		}
		return true
	}
}

// Text joins a result's text contents.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Structured decodes a result's structuredContent into v.
func Structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// ServeMCP runs serve (a shim's Serve method, say) in the test process on
// one end of the SDK's in-memory transports and connects an [MCPClient] to
// the other. When the test ends the client disconnects and ServeMCP waits
// for serve to return, which must then be without an error.
func ServeMCP(t testing.TB, serve func(context.Context, mcp.Transport) error) *MCPClient {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	return serveOn(t, serve, ct, st)
}

// serveOn runs serve on st and connects an MCPClient on ct (see ServeMCP).
func serveOn(t testing.TB, serve func(context.Context, mcp.Transport) error, ct, st mcp.Transport) *MCPClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, st) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serving MCP: %v", err)
		}
	})
	return ConnectMCP(t, ct)
}
