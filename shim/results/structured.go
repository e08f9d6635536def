package results

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WithOutputSchema checks res, the result of a call to tool (an MCP name)
// that declares an outputSchema, with check (the schema's validator). A
// successful result must carry its structured value (structuredContent: the
// JSON object the page returned, or the structuredContent of an MCP-style
// result) and that value must match: it is then returned as it is, the text
// rendering alongside. Otherwise the agent gets an error result that says
// what is wrong (which field, when the validator names one); the page's
// tool ran. Error results pass unchanged.
func WithOutputSchema(tool string, res *mcp.CallToolResult, check func(json.RawMessage) error) *mcp.CallToolResult {
	if res == nil || res.IsError || check == nil {
		return res
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(raw) == 0 {
		if res.StructuredContent != nil {
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				return Failure(CodeInvalidOutput, Ran, "tool %s returned a structured result that cannot be encoded (%v)", tool, err)
			}
			raw = b
		} else {
			return Failure(CodeInvalidOutput, Ran, "tool %s declares an outputSchema but returned no JSON object (%s); the page must return an object that matches its outputSchema", tool, preview(res))
		}
	}
	if err := check(raw); err != nil {
		return Failure(CodeInvalidOutput, Ran, "tool %s returned a result that does not match its outputSchema: %v; the result was %s", tool, err, preview(res))
	}
	return res
}

// maxPreview is the most of a refused result's text quoted in the error.
const maxPreview = 300

// preview is the start of res's text, quoted, for an error about it.
func preview(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = tc.Text
			break
		}
	}
	if len(s) > maxPreview {
		i := maxPreview
		for i > 0 && (s[i]&0xC0) == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return fmt.Sprintf("%q", s)
}
