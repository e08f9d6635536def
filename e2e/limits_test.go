package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
)

// TestSizesThroughTheChain: 16 MiB of arguments reach the page byte for
// byte through every hop (MCP stdio, the socket, the host's chunks to the
// browser, the worker, the relay, the page); a bigger message is refused
// with an error that names the limit, the page never sees it, and the next
// call works; a big result reaches the agent as a file, byte for byte, up to
// 64 MiB of JSON (protocol.MaxResult), with a small call in flight beside it;
// one byte more is too_large, the page having run its tool, and the calls
// beside and after it are fine. In both modes: the polyfill's tools answer
// through the page's world and the relay's channel to it, the browser's
// own through the relay's native source.
func TestSizesThroughTheChain(t *testing.T) {
	forEachMode(t, testSizesThroughTheChain)
}

func testSizesThroughTheChain(t *testing.T, m mode) {
	b := start(t, m)
	tab, _ := b.open(demoURL("localhost", "/?sizes"))
	// The polyfill's path (the page's world, the relay's channel, the
	// worker) is not the native one's: the page must run on m's WebMCP.
	if got := eval[string](t, tab, `window.demo.ready.then(() => window.demo.mode)`); got != string(m) {
		t.Fatalf("the page runs on %q WebMCP, want %q", got, m)
	}
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
		// make_flat returns n characters that JSON writes as they are (its
		// output is n+2 bytes of JSON), and lets wait_flat's calls go on.
		let started;
		window.__flatStarted = new Promise((r) => { started = r; });
		await document.modelContext.registerTool({
			name: 'make_flat', description: 'Returns n characters, no escapes.', annotations: {readOnlyHint: true},
			inputSchema: {type: 'object', properties: {n: {type: 'integer'}}},
			execute: ({n}) => { started(); return 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(n / 36)).slice(0, n); },
		});
		await document.modelContext.registerTool({
			name: 'wait_flat', description: 'Answers once make_flat has run.', annotations: {readOnlyHint: true},
			inputSchema: {type: 'object', properties: {}},
			execute: async () => { await window.__flatStarted; return 'small'; },
		});
	})()`)
	b.waitTools("size_of, make_text, make_flat and wait_flat", func(m map[string]*mcp.Tool) bool {
		return m["size_of"] != nil && m["make_text"] != nil && m["make_flat"] != nil && m["wait_flat"] != nil
	})
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

	// 64 MiB of JSON, the largest result (protocol.MaxResult), with a small
	// call on the same tab in flight beside it: both answered, the big one
	// byte for byte in its file.
	big, small := bigBeside(ctx, t, b, protocol.MaxResult-2)
	path, _ = big.Meta["dev.webmcp/resultFile"].(string)
	if big.IsError || path == "" {
		t.Fatalf("make_flat of %d bytes of JSON = %.300s %v, want the result saved to a file", protocol.MaxResult, firstText(big), big.Meta)
	}
	if small.IsError || firstText(small) != "small" {
		t.Errorf("the small call beside it = %.300s", firstText(small))
	}
	body, err = os.ReadFile(path)
	want := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", (protocol.MaxResult+35)/36)[:protocol.MaxResult-2]
	if err != nil || string(body) != want {
		t.Errorf("the file holds %d bytes (%v), want the %d of the result, byte for byte", len(body), err, len(want))
	}
	body, want = nil, ""

	// One byte more: an error that names the limit and says the page ran
	// its tool; the call beside it and the next call are fine.
	big, small = bigBeside(ctx, t, b, protocol.MaxResult-1)
	if !big.IsError || big.Meta["dev.webmcp/error"] != "too_large" || big.Meta["dev.webmcp/pageRan"] != "yes" ||
		!strings.Contains(firstText(big), "over the bridge's limit of 64 MiB") {
		t.Errorf("a result over the limit = %.300s %v, want too_large naming the limit", firstText(big), big.Meta)
	}
	if small.IsError || firstText(small) != "small" {
		t.Errorf("the small call beside the refused one = %.300s", firstText(small))
	}
	if res := b.call(ctx, "size_of", map[string]any{"text": "small"}); res.IsError {
		t.Errorf("the next call: %s", firstText(res))
	}
}

// bigBeside calls make_flat for n characters and, at the same time,
// wait_flat, which the page answers only once make_flat has run; it
// returns both results.
func bigBeside(ctx context.Context, t *testing.T, b *bridge, n int) (big, small *mcp.CallToolResult) {
	t.Helper()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	smallDone := make(chan answer, 1)
	go func() {
		res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "wait_flat", Arguments: map[string]any{}})
		smallDone <- answer{res, err}
	}()
	big = b.call(ctx, "make_flat", map[string]any{"n": n})
	a := <-smallDone
	if a.err != nil {
		t.Fatalf("wait_flat beside make_flat: %v", a.err)
	}
	return big, a.res
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
