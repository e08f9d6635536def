package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
)

// wire is what the agent receives: the result as JSON, decoded generically.
func wire(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return m
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func TestFromOutput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output string
		want   map[string]any
	}{
		{"string", `"slice 42 selected"`, map[string]any{
			"content": []any{text("slice 42 selected")},
		}},
		{"string with escapes", `"a\n\"b\"\u00e9"`, map[string]any{
			"content": []any{text("a\n\"b\"é")},
		}},
		{"object", `{ "id": 42,  "name": "x" }`, map[string]any{
			"content":           []any{text(`{"id":42,"name":"x"}`)},
			"structuredContent": map[string]any{"id": float64(42), "name": "x"},
		}},
		{"array", `[1, 2]`, map[string]any{
			"content": []any{text(`[1,2]`)},
		}},
		{"number", `3.5`, map[string]any{"content": []any{text(`3.5`)}}},
		{"null", `null`, map[string]any{"content": []any{text(`null`)}}},
		{"missing", ``, map[string]any{"content": []any{text(`null`)}}},
		{"mcp text", `{"content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}`, map[string]any{
			"content": []any{text("hi"), text("there")},
		}},
		{"mcp error", `{"content":[{"type":"text","text":"bad slice"}],"isError":true}`, map[string]any{
			"content": []any{text("bad slice")},
			"isError": true,
		}},
		{"mcp image", `{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`, map[string]any{
			"content": []any{map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
		}},
		{"mcp structured", `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a": 1}}`, map[string]any{
			"content":           []any{text(`{"a":1}`)},
			"structuredContent": map[string]any{"a": float64(1)},
		}},
		{"mcp empty content", `{"content":[]}`, map[string]any{"content": []any{}}},
		{"mcp text with annotations and _meta", `{"content":[{"type":"text","text":"hi","annotations":{"priority":0.5},"_meta":{"k":"v"}}]}`, map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "hi", "annotations": map[string]any{"priority": 0.5}, "_meta": map[string]any{"k": "v"}}},
		}},
		{"mcp text and image", `{"content":[{"type":"text","text":"see"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`, map[string]any{
			"content": []any{text("see"), map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
		}},
		{"content not an array", `{"content":"plain"}`, map[string]any{
			"content":           []any{text(`{"content":"plain"}`)},
			"structuredContent": map[string]any{"content": "plain"},
		}},
		{"unknown content type", `{"content":[{"type":"hologram"}]}`, map[string]any{
			"content":           []any{text(`{"content":[{"type":"hologram"}]}`)},
			"structuredContent": map[string]any{"content": []any{map[string]any{"type": "hologram"}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wire(t, FromOutput(json.RawMessage(tc.output)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FromOutput(%s) mismatch (-want +got):\n%s", tc.output, diff)
			}
		})
	}
}

func TestFromOutputMalformed(t *testing.T) {
	res := FromOutput(json.RawMessage(`{not json`))
	if !res.IsError {
		t.Fatal("malformed output is not an error")
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "malformed JSON") {
		t.Fatalf("message = %q", got)
	}
}

func errText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("result is not an error: %+v", res)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content = %+v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

const (
	sayNo    = " The page did not run this call."
	sayYes   = " The page's tool ran."
	sayMaybe = " The page may have run this call, in part or in whole: check the page's state before calling again."
)

func TestFromError(t *testing.T) {
	for _, tc := range []struct {
		code, msg string
		want      string
		ran       PageRan
	}{
		{protocol.CodeToolError, "no slice 42", "tool select failed: no slice 42." + sayYes, Ran},
		{protocol.CodeToolError, "no slice 42.", "tool select failed: no slice 42." + sayYes, Ran},
		// Chromium 156's words for a form it finds invalid end in two periods.
		{protocol.CodeToolError, "Form validation failed: kind: Please select an item in the list..",
			"tool select failed: Form validation failed: kind: Please select an item in the list." + sayYes, Ran},
		{protocol.CodeNotFound, "no tool", "tool select is gone: the page unregistered it or navigated; list tools again." + sayNo, NotRun},
		{protocol.CodeNoBrowser, "browser gone", NoBrowser + "." + sayNo, NotRun},
		{protocol.CodeTabClosed, "tab 7 closed", "tool select: its tab closed while the call ran (tab 7 closed); list tools again." + sayMaybe, MaybeRan},
		{protocol.CodeNavigated, "to /b", "tool select: its tab navigated away while the call ran (to /b); list tools again." + sayMaybe, MaybeRan},
		{protocol.CodeNotAllowed, "bank.example", "tool select: the site is not allowed (bank.example); the user can allow it in the WebMCP bridge extension." + sayNo, NotRun},
		{protocol.CodeTooLarge, "the result is 70000000 bytes of JSON", "tool select ran, but its result cannot reach you (the result is 70000000 bytes of JSON)." + sayYes, Ran},
		{protocol.CodeBadRequest, "bad", "tool select: the bridge refused the call (bad)." + sayNo, NotRun},
		{protocol.CodeDeclined, "the user declined the call of select on http://localhost:1 (the user denied it); the page's tool did not run. Do not call it again unless the user asks you to.",
			"tool select: the user declined the call of select on http://localhost:1 (the user denied it); the page's tool did not run. Do not call it again unless the user asks you to.", NotRun},
		// The extension's words say it already: once is enough.
		{protocol.CodeDeclined, "the user declined (The page did not run this call)",
			"tool select: the user declined (The page did not run this call).", NotRun},
		{protocol.CodeBrowserGone, "gone", "tool select: the browser disconnected while the call ran (gone)." + sayMaybe, MaybeRan},
		{"brand_new", "what", "tool select failed in the bridge (brand_new: what)." + sayMaybe, MaybeRan},
	} {
		res := FromError("select", &protocol.Error{Code: tc.code, Message: tc.msg})
		if got := errText(t, res); got != tc.want {
			t.Errorf("code %s: got %q, want %q", tc.code, got, tc.want)
		}
		if res.Meta[MetaCode] != tc.code || res.Meta[MetaPageRan] != string(tc.ran) {
			t.Errorf("code %s: _meta %v, want error %s and pageRan %s", tc.code, res.Meta, tc.code, tc.ran)
		}
	}
	if got := errText(t, FromError("x", nil)); !strings.Contains(got, "without saying why") {
		t.Errorf("nil error: %q", got)
	}
}

// TestEveryFailureSaysWhetherThePageRan: the shim's own failures too.
func TestEveryFailureSaysWhetherThePageRan(t *testing.T) {
	for _, tc := range []struct {
		res  *mcp.CallToolResult
		code string
		ran  PageRan
	}{
		{Gone("a"), protocol.CodeNotFound, NotRun},
		{TimedOut(time.Second), protocol.CodeTimeout, MaybeRan},
		{Cancelled(), protocol.CodeCancelled, MaybeRan},
		{Disconnected(errors.New("gone")), CodeDisconnected, MaybeRan},
		{FromOutput(json.RawMessage(`{oops`)), CodeMalformedOutput, Ran},
	} {
		text := errText(t, tc.res)
		if tc.res.Meta[MetaCode] != tc.code || tc.res.Meta[MetaPageRan] != string(tc.ran) || !strings.HasSuffix(text, tc.ran.says()) {
			t.Errorf("%q, _meta %v: want code %s, pageRan %s, said at the end", text, tc.res.Meta, tc.code, tc.ran)
		}
	}
}

func TestTimedOut(t *testing.T) {
	for d, want := range map[time.Duration]string{
		60 * time.Second:        "timed out after 60s; the call was cancelled in the page." + sayMaybe,
		1500 * time.Millisecond: "timed out after 1.5s; the call was cancelled in the page." + sayMaybe,
		200 * time.Millisecond:  "timed out after 200ms; the call was cancelled in the page." + sayMaybe,
	} {
		if got := errText(t, TimedOut(d)); got != want {
			t.Errorf("TimedOut(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestWithOutputSchema(t *testing.T) {
	check := func(raw json.RawMessage) error {
		var v struct{ Count any }
		json.Unmarshal(raw, &v)
		if _, ok := v.Count.(float64); !ok {
			return fmt.Errorf(`field "count": not a number`)
		}
		return nil
	}
	ok := FromOutput(json.RawMessage(`{"count":3}`))
	if got := WithOutputSchema("stats", ok, check); got != ok || got.IsError {
		t.Errorf("a matching result = %+v, want it unchanged", got)
	}
	bad := WithOutputSchema("stats", FromOutput(json.RawMessage(`{"count":"x"}`)), check)
	if !bad.IsError || bad.Meta[MetaCode] != CodeInvalidOutput || bad.Meta[MetaPageRan] != string(Ran) ||
		!strings.Contains(textOf(bad), `field "count": not a number`) || !strings.Contains(textOf(bad), `{\"count\":\"x\"}`) {
		t.Errorf("a result off its schema = %q %v", textOf(bad), bad.Meta)
	}
	text := WithOutputSchema("stats", FromOutput(json.RawMessage(`"hello"`)), check)
	if !text.IsError || !strings.Contains(textOf(text), "no JSON object") {
		t.Errorf("a text result = %q", textOf(text))
	}
	failed := FromError("stats", &protocol.Error{Code: protocol.CodeToolError, Message: "boom"})
	if got := WithOutputSchema("stats", failed, check); got != failed {
		t.Errorf("an error result is checked: %+v", got)
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// A navigated error that the page's frame itself answered (ran) says the
// call ran, once, without quoting the page's message.
func TestFromErrorNavigatedRan(t *testing.T) {
	res := FromError("search", &protocol.Error{Code: protocol.CodeNavigated, Message: "tool \"search\" navigated the page", Ran: true})
	if got, want := errText(t, res), "tool search ran and navigated its page; list tools again for the new page's."+sayYes; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if res.Meta[MetaPageRan] != string(Ran) {
		t.Errorf("_meta %v, want pageRan yes", res.Meta)
	}
}

// BenchmarkFromOutput turns a typical MCP-style text output (the demo's
// sum_numbers) into a result.
func BenchmarkFromOutput(b *testing.B) {
	out := json.RawMessage(`{"content":[{"type":"text","text":"42"}]}`)
	for b.Loop() {
		FromOutput(out)
	}
}

// textItems, the shortcut, decodes what it takes as the SDK does, and
// leaves the rest to the SDK.
func TestTextItemsAsTheSDK(t *testing.T) {
	for _, tc := range []struct {
		content string
		takes   bool
	}{
		{`[]`, true},
		{`[{"type":"text","text":"hi"},{"text":"a\n\"b\"é","type":"text"}]`, true},
		{`[{"type":"text","text":null}]`, true},
		{`[{"type":"text","text":"hi","text":"again"}]`, true},
		{`[{"type":"text","Text":"hi"}]`, false},
		{`[{"Type":"text","text":"hi"}]`, false},
		{`[{"type":"text"}]`, false},
		{`[{"type":"text","text":"hi","annotations":{"priority":1}}]`, false},
		{`[{"type":"text","text":"hi","_meta":{}}]`, false},
		{`[{"type":"text","text":7}]`, false},
		{`[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]`, false},
		{`[{"type":"text","text":"hi"},{"type":"hologram"}]`, false},
	} {
		got, ok := textItems(json.RawMessage(tc.content))
		if ok != tc.takes {
			t.Errorf("textItems(%s) takes it: %v, want %v", tc.content, ok, tc.takes)
			continue
		}
		if !ok {
			continue
		}
		want, sdkOK := sdkItems(json.RawMessage(tc.content))
		if !sdkOK {
			t.Errorf("textItems(%s) took what the SDK refuses", tc.content)
			continue
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("textItems(%s) = %s, the SDK %s", tc.content, g, w)
		}
	}
}
