package results

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

// MetaSchemaMismatch is the _meta key of a call's result whose arguments
// did not match the tool's inputSchema: what the mismatch was (the field
// and the schema's rule). The call went to the page anyway, as the
// browser's own agent sends it: Chromium does not check arguments against
// the schema.
const MetaSchemaMismatch = protocol.MetaPrefix + "inputSchemaMismatch"

// maxMismatch is the most of a mismatch's description that a note quotes.
const maxMismatch = 300

// schemaNote is the text a result gains when its call's arguments did not
// match the tool's inputSchema.
const schemaNote = "(Note from the WebMCP bridge: these arguments do not match the tool's inputSchema: %s. The browser does not check arguments against the schema, so the page got them as given; its answer is above.)"

// WithSchemaNote adds to res, the result of a call whose arguments did not
// match the tool's inputSchema in the way mismatch says, a short note for
// the agent: a last text content, and the mismatch in _meta under
// MetaSchemaMismatch. The result stays what the page made it (an error
// stays an error, a success a success).
func WithSchemaNote(res *mcp.CallToolResult, mismatch string) *mcp.CallToolResult {
	if res == nil || mismatch == "" {
		return res
	}
	mismatch = textcut.Line(mismatch, maxMismatch)
	res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf(schemaNote, mismatch)})
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	res.Meta[MetaSchemaMismatch] = mismatch
	return res
}
