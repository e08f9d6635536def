package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSizesThroughTheChain: 16 MiB of arguments reach the page byte for
// byte through every hop (MCP stdio, the socket, the host's chunks to the
// browser, the worker, the relay, the page); a bigger message is refused
// with an error that names the limit, the page never sees it, and the next
// call works; a big result reaches the agent as a file, byte for byte.
func TestSizesThroughTheChain(t *testing.T) {
	b := start(t, modes[0])
	tab, _ := b.open(demoURL("localhost", "/?sizes"))
	eval[any](t, tab, `window.demo.ready`)
	eval[any](t, tab, `(async () => {
		window.__sizeCalls = 0;
		await document.modelContext.registerTool({
			name: 'size_of', description: 'Measures its argument.',
			inputSchema: {type: 'object', properties: {text: {type: 'string'}}},
			execute: ({text}) => {
				window.__sizeCalls++;
				let sum = 0;
				for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) >>> 0;
				return {length: text.length, sum};
			},
		});
		await document.modelContext.registerTool({
			name: 'make_text', description: 'Returns n characters.', annotations: {readOnlyHint: true},
			inputSchema: {type: 'object', properties: {n: {type: 'integer'}}},
			execute: ({n}) => 'abcdefghijklmnopqrstuvwxyz0123456789\n'.repeat(Math.ceil(n / 37)).slice(0, n),
		});
	})()`)
	b.waitTools("size_of and make_text", func(m map[string]*mcp.Tool) bool { return m["size_of"] != nil && m["make_text"] != nil })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard only
	defer cancel()

	// 16 MiB less the envelope: the largest argument the bridge carries.
	text := strings.Repeat("0123456789abcdef", (16<<20)/16-64)
	var sum uint32
	for i := 0; i < len(text); i++ {
		sum = sum*31 + uint32(text[i])
	}
	res := b.call(ctx, "size_of", map[string]any{"text": text})
	var got struct {
		Length int    `json:"length"`
		Sum    uint32 `json:"sum"`
	}
	if err := json.Unmarshal([]byte(firstText(res)), &got); res.IsError || err != nil || got.Length != len(text) || got.Sum != sum {
		t.Fatalf("size_of %d bytes = %.300s, want length %d and sum %d", len(text), firstText(res), len(text), sum)
	}

	// Past the limit: refused before the page, and the session goes on.
	res = b.call(ctx, "size_of", map[string]any{"text": text + strings.Repeat("x", 200<<10)})
	if !res.IsError || !strings.Contains(firstText(res), "over the bridge's limit") || res.Meta["dev.webmcp/pageRan"] != "no" {
		t.Errorf("an argument over the limit = %.300s %v", firstText(res), res.Meta)
	}
	if n := eval[int](t, tab, `window.__sizeCalls`); n != 1 {
		t.Errorf("the page's tool ran %d times, want once (the refused call never reached it)", n)
	}
	if res := b.call(ctx, "size_of", map[string]any{"text": "small"}); res.IsError {
		t.Errorf("the next call: %s", firstText(res))
	}

	// A 32 MiB result: a file with it all, and its path for the agent.
	const n = 32 << 20
	res = b.call(ctx, "make_text", map[string]any{"n": n})
	path, _ := res.Meta["dev.webmcp/resultFile"].(string)
	if res.IsError || path == "" || !strings.Contains(firstText(res), path) {
		t.Fatalf("make_text %d = %.300s %v, want the result saved to a file", n, firstText(res), res.Meta)
	}
	body, err := os.ReadFile(path)
	if err != nil || len(body) != n || !strings.HasPrefix(string(body), "abcdefghijklmnopqrstuvwxyz0123456789\nabc") {
		t.Errorf("the file holds %d bytes (%v), want the %d of the result", len(body), err, n)
	}
}

// firstText is the first text content of res.
func firstText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}
