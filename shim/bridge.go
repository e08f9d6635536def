package shim

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// BridgeTool is a tool of the bridge itself rather than of a page. Its name
// is reserved: a page tool with the same name gets a suffix.
type BridgeTool struct {
	// Tool is the MCP tool; its InputSchema must be an object schema.
	Tool *mcp.Tool
	// Handler answers a call with args (raw JSON, possibly empty). Failures
	// are isError results.
	Handler func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult
}

// bridgeTools are the bridge's own tools, in the order they are listed.
// Add new ones here.
func bridgeTools() []*BridgeTool {
	return []*BridgeTool{listTabsTool()}
}

func boolPtr(b bool) *bool { return &b }

// listTabsTool is list_tabs: the tabs of every connected browser.
func listTabsTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "list_tabs",
			Title: "List browser tabs",
			Description: "[WebMCP bridge] Lists the tabs of every connected browser: id, title, url, origin, " +
				"whether the user allowed the site (only allowed tabs' tools are offered), whether it is the active tab of its window, " +
				"and how many tools its pages offer.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Annotations: &mcp.ToolAnnotations{
				Title:           "List browser tabs",
				ReadOnlyHint:    true,
				DestructiveHint: boolPtr(false),
				IdempotentHint:  true,
				OpenWorldHint:   boolPtr(false),
			},
		},
		Handler: func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult {
			out := struct {
				Tabs []TabInfo `json:"tabs"`
				Note string    `json:"note,omitempty"`
			}{Tabs: s.Tabs()}
			if len(s.pool.Conns()) == 0 {
				out.Note = results.NoBrowser
			}
			b, err := json.Marshal(out)
			if err != nil {
				return results.Errorf("list_tabs: %v", err)
			}
			res := results.Text(string(b))
			res.StructuredContent = json.RawMessage(b)
			return res
		},
	}
}
