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
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
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
		return Failure(CodeMalformedOutput, Ran, "the page's tool returned malformed JSON (%v): %s", err, output)
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
	items, ok := textItems(content)
	if !ok {
		if items, ok = sdkItems(content); !ok {
			return nil, false
		}
	}
	res := &mcp.CallToolResult{Content: items}
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

// sdkItems decodes content, a JSON array of content items, as the SDK
// does: it knows every content type.
func sdkItems(content json.RawMessage) ([]mcp.Content, bool) {
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
	return parsed.Content, true
}

// textItems is sdkItems for the common case, content whose every item is
// plain text (exactly the keys "type", which is "text", and "text", both
// strings), without the SDK's decoder, which cost the shim more per call
// than the rest of turning an output into a result; false for anything
// else, which sdkItems decodes.
func textItems(content json.RawMessage) ([]mcp.Content, bool) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(content, &items) != nil {
		return nil, false
	}
	out := make([]mcp.Content, len(items))
	for i, it := range items {
		var typ, text string
		// Keys as the SDK's decoder matches them: exactly (encoding/json's
		// struct fields would match "Text" too).
		if len(it) != 2 || json.Unmarshal(it["type"], &typ) != nil || typ != "text" || it["text"] == nil || json.Unmarshal(it["text"], &text) != nil {
			return nil, false
		}
		out[i] = &mcp.TextContent{Text: text}
	}
	return out, true
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

// PageRan says whether a failed call may have run in the page. Every
// failure of a call says it, in its text and in its _meta under
// [MetaPageRan], so that an agent knows whether calling again is safe.
type PageRan string

const (
	// NotRun: the call never reached the page; calling again is safe.
	NotRun PageRan = "no"
	// Ran: the page's tool ran, and failed.
	Ran PageRan = "yes"
	// MaybeRan: the call reached the page, or may have, and ended without
	// its answer; what it did there is unknown.
	MaybeRan PageRan = "maybe"
)

// The _meta keys of a failed call's result.
const (
	// MetaPageRan holds the failure's PageRan: "no", "yes" or "maybe".
	MetaPageRan = protocol.MetaPrefix + "pageRan"
	// MetaCode holds the failure's code: one of the protocol's
	// (protocol.Code*) or of the shim's below.
	MetaCode = protocol.MetaPrefix + "error"
)

// The codes of failures that the shim finds itself, beside the protocol's.
const (
	CodeInvalidArguments = "invalid_arguments"   // the arguments do not match the tool's inputSchema
	CodeSchemaRefused    = "schema_refused"      // the bridge refuses the tool's inputSchema
	CodeTooLarge         = protocol.CodeTooLarge // a message over one of the bridge's limits (from the page: its result)
	CodeDisconnected     = "disconnected"        // the connection to the host ended mid-call
	CodeMalformedOutput  = "malformed_output"    // the page's answer is not JSON
	CodeInvalidOutput    = "invalid_output"      // the page's answer does not match the outputSchema it declared
)

// says is the sentence a failure's text ends with.
func (r PageRan) says() string {
	switch r {
	case NotRun:
		return "The page did not run this call."
	case Ran:
		return "The page's tool ran."
	default:
		return "The page may have run this call, in part or in whole: check the page's state before calling again."
	}
}

// Failure is the isError result of a call that failed: the text, then what
// is known of whether the page ran it (once: not when the text says already
// that the page did not run it); code and that in _meta.
func Failure(code string, ran PageRan, format string, args ...any) *mcp.CallToolResult {
	// One period: a message that ends in two (Chromium's form validation
	// message does) or none ends in one.
	text := strings.TrimRight(strings.TrimSpace(fmt.Sprintf(format, args...)), ".") + "."
	if !saysNotRun(ran, text) {
		text += " " + ran.says()
	}
	res := Text(text)
	res.IsError = true
	res.Meta = mcp.Meta{MetaCode: code, MetaPageRan: string(ran)}
	return res
}

// Size is n bytes for people: "65.0 MiB", "3.5 KiB", "12 bytes".
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// saysNotRun reports whether text says already that the page did not run
// the call, as the extension's words for a declined call do: the
// sentence is then not said twice.
func saysNotRun(ran PageRan, text string) bool {
	if ran != NotRun {
		return false
	}
	t := strings.ToLower(text)
	return strings.Contains(t, "the page did not run this call") || strings.Contains(t, "the page's tool did not run")
}

// Gone is the result of a call to tool (an MCP name) that no longer exists.
func Gone(tool string) *mcp.CallToolResult {
	return Failure(protocol.CodeNotFound, NotRun, "tool %s is gone: the page unregistered it or navigated; list tools again", tool)
}

// TimedOut is the result of a call that ran out of its time d.
func TimedOut(d time.Duration) *mcp.CallToolResult {
	return Failure(protocol.CodeTimeout, MaybeRan, "timed out after %s; the call was cancelled in the page", Seconds(d))
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
	return Failure(protocol.CodeCancelled, MaybeRan, "cancelled by the client; the call was cancelled in the page")
}

// Disconnected is the result of a call whose browser went away while it ran.
func Disconnected(err error) *mcp.CallToolResult {
	return Failure(CodeDisconnected, MaybeRan, "browser disconnected: %v; list tools again: if the browser is still open, its tools come back by themselves", err)
}

// FromError maps an error message of the bridge protocol, answering a call
// of tool (an MCP name). Each code has its own wording; each says whether
// the page ran the call.
func FromError(tool string, e *protocol.Error) *mcp.CallToolResult {
	if e == nil {
		return Failure(protocol.CodeInternal, MaybeRan, "tool %s failed without saying why", tool)
	}
	switch e.Code {
	case protocol.CodeToolError:
		// The page's tool threw or rejected, or the browser refused a
		// declarative form (its constraints): "failed" fits both.
		return Failure(e.Code, Ran, "tool %s failed: %s", tool, e.Message)
	case protocol.CodeNotFound:
		return Gone(tool)
	case protocol.CodeTabClosed:
		return Failure(e.Code, MaybeRan, "tool %s: its tab closed while the call ran (%s); list tools again", tool, e.Message)
	case protocol.CodeNavigated:
		// The shim says where the tab went (Server.navigatedResult); this
		// is the wording without it.
		if e.Ran {
			return Failure(e.Code, Ran, "tool %s ran and navigated its page; list tools again for the new page's", tool)
		}
		return Failure(e.Code, MaybeRan, "tool %s: its tab navigated away while the call ran (%s); list tools again", tool, e.Message)
	case protocol.CodeCancelled:
		return Failure(e.Code, MaybeRan, "tool %s: the call was cancelled (%s)", tool, e.Message)
	case protocol.CodeTimeout:
		return Failure(e.Code, MaybeRan, "tool %s timed out in the browser (%s); the call was cancelled in the page", tool, e.Message)
	case protocol.CodeNoBrowser:
		return Failure(e.Code, NotRun, "%s", NoBrowser)
	case protocol.CodeBrowserGone:
		return Failure(e.Code, MaybeRan, "tool %s: the browser disconnected while the call ran (%s)", tool, e.Message)
	case protocol.CodeDeclined:
		// The user said no in the extension's consent window (Deny, closed
		// it, or no answer in time); the extension's message says which.
		return Failure(e.Code, NotRun, "tool %s: %s", tool, e.Message)
	case protocol.CodeBlocked:
		// A dialog stops the page's scripts; the extension's message gives
		// its kind and text.
		return Failure(e.Code, NotRun, "tool %s: %s", tool, e.Message)
	case protocol.CodeNotAllowed:
		return Failure(e.Code, NotRun, "tool %s: the site is not allowed (%s); the user can allow it in the WebMCP bridge extension", tool, e.Message)
	case protocol.CodeTooLarge:
		return Failure(e.Code, Ran, "tool %s ran, but its result cannot reach you (%s)", tool, e.Message)
	case protocol.CodeBadRequest:
		return Failure(e.Code, NotRun, "tool %s: the bridge refused the call (%s)", tool, e.Message)
	default:
		return Failure(e.Code, MaybeRan, "tool %s failed in the bridge (%s: %s)", tool, e.Code, e.Message)
	}
}
