package shim

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// getUIContextTool is get_ui_context: what the user is looking at now.
func getUIContextTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "get_ui_context",
			Title: "What the user is looking at",
			Description: "[WebMCP bridge] Returns the UI context of the tab the user is looking at (the active tab of the last focused browser window): " +
				"tab {id, url, title}; providers [{id, summary, data}] as the page's context providers report them; notes on providers left out; " +
				"ambient {selection, focused element}; pinned: snapshots the user pinned (frozen: ids in them stay valid, the view may have moved on); " +
				"descriptions: what each provider's data means, once per provider. The page is asked for a fresh sample first; " +
				"\"stale\" says when only the latest earlier one could be given. Call it when the user refers to \"this\", the selection or what is on screen " +
				"and no <ui_context> came with the message. Only sites the user allowed have context.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Annotations: &mcp.ToolAnnotations{
				Title:           "What the user is looking at",
				ReadOnlyHint:    true,
				DestructiveHint: boolPtr(false),
				IdempotentHint:  true,
				OpenWorldHint:   boolPtr(false),
			},
		},
		Handler: func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult {
			// A browser that is starting gets a moment to connect.
			ctx, cancel := s.callContext(ctx)
			defer cancel()
			s.awaitBrowser(ctx)
			v := s.UIContext(ctx, SampleBudget)
			b, err := json.Marshal(v)
			if err != nil {
				return results.Errorf("get_ui_context: %v", err)
			}
			res := results.Text(string(b))
			res.StructuredContent = json.RawMessage(b)
			return res
		},
	}
}
