package shim

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// hiddenTab is what list_tabs says about a tab whose site is not allowed.
type hiddenTab struct {
	ID      int    `json:"id"`
	Origin  string `json:"origin"`
	Allowed bool   `json:"allowed"` // always false
}

// listTabsTool is list_tabs: the tabs of every connected browser.
func listTabsTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "list_tabs",
			Title: "List browser tabs",
			Description: "[WebMCP bridge] Lists the tabs of every connected browser: id, title, url, origin, " +
				"whether the user allowed the site (only allowed tabs' tools are offered), whether it is the active tab of its window " +
				"(focused: the tab the user is looking at), and how many tools its pages offer. " +
				"A tab whose site is not allowed shows only its id and origin.",
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
			// A browser that is starting gets a moment to connect.
			ctx, cancel := s.callContext(ctx)
			s.awaitBrowser(ctx)
			cancel()
			out := struct {
				Tabs []any  `json:"tabs"`
				Note string `json:"note,omitempty"`
			}{Tabs: []any{}}
			for _, t := range s.Tabs() {
				if t.Allowed {
					out.Tabs = append(out.Tabs, t)
				} else {
					// Only allowed sites reach agents: not even the
					// title or URL of the others.
					out.Tabs = append(out.Tabs, hiddenTab{ID: t.ID, Origin: t.Origin})
				}
			}
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
