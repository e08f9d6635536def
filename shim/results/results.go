// Package results turns what a page's tool answered into MCP tool results,
// and the bridge's failures into error results an agent can act on.
//
// Every failure the agent can do something about is an isError result (the
// model reads it and may retry), never a JSON-RPC error.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// NoBrowser is what the bridge says when no browser is connected.
const NoBrowser = "no browser connected: open Chrome/Chromium with the WebMCP bridge extension installed (see README)"

// FromOutput maps the JSON value that a page's tool returned:
//
//   - a JSON string becomes one text content with that string;
//   - an object with a "content" array (an MCP-style result, as WebMCP pages
//     often return) gives its content and its "isError" (and its
//     "structuredContent" when that is an object);
//   - anything else becomes one text content with the compact JSON, plus
//     structuredContent when it is an object.
//
// A missing output counts as null.
func FromOutput(output json.RawMessage) *mcp.CallToolResult {
	output = bytes.TrimSpace(output)
	if len(output) == 0 {
		output = json.RawMessage("null")
	}
	switch output[0] {
	case '"':
		var s string
		if err := json.Unmarshal(output, &s); err == nil {
			return Text(s)
		}
	case '{':
		if res, ok := mcpStyle(output); ok {
			return res
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, output); err != nil {
		// Not JSON at all: the host relays bytes as the extension sent
		// them, so say what arrived rather than dropping it.
		return Errorf("the page's tool returned malformed JSON (%v): %s", err, output)
	}
	compact := json.RawMessage(buf.Bytes())
	res := Text(string(compact))
	if compact[0] == '{' {
		res.StructuredContent = compact
	}
	return res
}

// mcpStyle reads an object with a "content" array as an MCP tool result. It
// reports false if the object is not one (no array, or items the SDK does
// not know), so that the caller falls back to the plain JSON.
func mcpStyle(output json.RawMessage) (*mcp.CallToolResult, bool) {
	var obj struct {
		Content           json.RawMessage `json:"content"`
		IsError           *bool           `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(output, &obj); err != nil {
		return nil, false
	}
	content := bytes.TrimSpace(obj.Content)
	if len(content) == 0 || content[0] != '[' {
		return nil, false
	}
	// Let the SDK decode the content items: it knows every content type.
	var parsed mcp.CallToolResult
	wire, err := json.Marshal(struct {
		Content json.RawMessage `json:"content"`
	}{content})
	if err != nil {
		return nil, false
	}
	if err := json.Unmarshal(wire, &parsed); err != nil {
		return nil, false
	}
	res := &mcp.CallToolResult{Content: parsed.Content}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	if obj.IsError != nil {
		res.IsError = *obj.IsError
	}
	if sc := bytes.TrimSpace(obj.StructuredContent); len(sc) > 0 && sc[0] == '{' {
		var buf bytes.Buffer
		if json.Compact(&buf, sc) == nil {
			res.StructuredContent = json.RawMessage(buf.Bytes())
		}
	}
	return res, true
}

// Text is a successful result with one text content.
func Text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// Errorf is an isError result with one text content.
func Errorf(format string, args ...any) *mcp.CallToolResult {
	res := Text(fmt.Sprintf(format, args...))
	res.IsError = true
	return res
}

// Gone is the result of a call to tool (an MCP name) that no longer exists.
func Gone(tool string) *mcp.CallToolResult {
	return Errorf("tool %s is gone: the page unregistered it or navigated; list tools again", tool)
}

// TimedOut is the result of a call that ran out of its time d.
func TimedOut(d time.Duration) *mcp.CallToolResult {
	return Errorf("timed out after %s; the call was cancelled in the page", Seconds(d))
}

// Seconds formats d for people: whole seconds as "60s" (not "1m0s"),
// anything else as time.Duration does ("1.5s", "250ms").
func Seconds(d time.Duration) string {
	if d > 0 && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// Cancelled is the result of a call that its caller cancelled.
func Cancelled() *mcp.CallToolResult {
	return Errorf("cancelled by the client; the call was cancelled in the page")
}

// Disconnected is the result of a call whose browser went away while it ran.
func Disconnected(err error) *mcp.CallToolResult {
	return Errorf("browser disconnected: %v; the call's outcome is unknown. List tools again: if the browser is still open, its tools come back by themselves", err)
}

// FromError maps an error message of the bridge protocol, answering a call
// of tool (an MCP name).
func FromError(tool string, e *webmcp.Error) *mcp.CallToolResult {
	if e == nil {
		return Errorf("tool %s failed without saying why", tool)
	}
	switch e.Code {
	case webmcp.CodeToolError:
		return Errorf("tool %s threw: %s", tool, e.Message)
	case webmcp.CodeNotFound:
		return Gone(tool)
	case webmcp.CodeTabClosed:
		return Errorf("tool %s: its tab closed while the call ran (%s); list tools again", tool, e.Message)
	case webmcp.CodeNavigated:
		return Errorf("tool %s: the page navigated away while the call ran (%s); list tools again", tool, e.Message)
	case webmcp.CodeCancelled:
		return Errorf("tool %s: the call was cancelled (%s)", tool, e.Message)
	case webmcp.CodeTimeout:
		return Errorf("tool %s timed out in the browser (%s); the call was cancelled in the page", tool, e.Message)
	case webmcp.CodeNoBrowser:
		return Errorf("%s", NoBrowser)
	case webmcp.CodeNotAllowed:
		return Errorf("tool %s: the site is not allowed (%s); the user can allow it in the WebMCP bridge extension", tool, e.Message)
	case webmcp.CodeBadRequest:
		return Errorf("tool %s: the bridge refused the call (%s)", tool, e.Message)
	default:
		return Errorf("tool %s failed in the bridge (%s: %s)", tool, e.Code, e.Message)
	}
}
