package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHalfForm serves, at /, a page that stops halfway through a form
// tool (streamed): after its first field a script registers a tool
// (halfway), and the rest of the form (a second field, the form's end)
// comes when the test closes release.
func serveHalfForm(t testing.TB, release <-chan struct{}) string {
	t.Helper()
	return serveLoopback(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Half a form</title></head><body>
<form toolname="streamed" tooldescription="A form that arrives in two parts.">
<input name="first" required>
<script>(document.modelContext || navigator.modelContext).registerTool({name: "halfway", description: "Registered halfway through the form.", inputSchema: {type: "object"}, execute: () => "ok"})</script>
<!-- `+fmt.Sprintf("%02048d", 0)+` -->
`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `<input name="second" required></form><p>After the form.</p></body></html>`)
	}) + "/"
}

// schemaFields are the property names of a tool's input schema, sorted.
func schemaFields(tool *mcp.Tool) []string {
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if tool == nil || json.Unmarshal([]byte(mustJSON(tool.InputSchema)), &s) != nil {
		return nil
	}
	var names []string
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// TestFormToolWhileParsing: a declarative form tool that the parser is
// still reading is offered as the browser offers it (the fields read so
// far), and the agent's copy grows when the rest of the form arrives.
func TestFormToolWhileParsing(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		release := make(chan struct{})
		url := serveHalfForm(t, release)
		// Open it without waiting for the load, which waits for release.
		no := false
		if _, err := chromedp.CallBrowser(b.browser, target.CreateTarget, target.CreateTargetParams{URL: url, NewWindow: &no}); err != nil {
			t.Fatal(err)
		}
		// halfway was registered after the first field was read: the list
		// that has it has what the form offered by then.
		mid := b.waitTools("halfway", func(ts map[string]*mcp.Tool) bool { return ts["halfway"] != nil })
		if got := schemaFields(mid["streamed"]); !slices.Equal(got, []string{"first"}) {
			t.Fatalf("halfway through the form, streamed has fields %v, want [first]", got)
		}
		close(release)
		b.waitTools("streamed with both fields", func(ts map[string]*mcp.Tool) bool {
			return slices.Equal(schemaFields(ts["streamed"]), []string{"first", "second"})
		})
	})
}
