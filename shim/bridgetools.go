package shim

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// bridgeTools are the bridge's own tools, in the order they are listed:
// list_tabs (listtabs.go), get_ui_context (getuicontext.go), open_page,
// focus_tab and close_tab (tabtools.go). Add new ones here, each in a file
// of its own.
func bridgeTools() []*BridgeTool {
	return []*BridgeTool{listTabsTool(), getUIContextTool(), openPageTool(), focusTabTool(), closeTabTool()}
}

func boolPtr(b bool) *bool { return &b }
