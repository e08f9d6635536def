package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// directPage's tool answers what its input names: each case of
// directCases, a value or a failure that the page's execute returns.
const directPage = `<!doctype html><html><head><title>direct</title></head><body><script>
const answers = {
  object: () => ({ content: [{ type: 'text', text: 'forty-two' }] }),
  plain: () => ({ a: 1, nested: [1, 'two', null] }),
  string: () => 'plain words',
  jsonString: () => '{"looks":"like JSON"}',
  undefined: () => undefined,
  nan: () => NaN,
  bigint: () => 10n,
  nestedBigint: () => ({ n: 10n }),
  date: () => new Date(0),
  holes: () => [undefined, () => 1],
  throws: () => { throw new RangeError('the page says no'); },
  rejects: () => Promise.reject(new Error('rejected by the page')),
  cyclic: () => { const o = {}; o.o = o; return o; },
  later: () => new Promise((r) => setTimeout(() => r({ later: true }), 20)),
};
window.activated = 0;
document.modelContext.addEventListener('toolactivated', (e) => { if (e.toolName === 'answers') window.activated++; });
document.modelContext.registerTool({
  name: 'answers', description: 'Answers what its input names.',
  inputSchema: { type: 'object', properties: { which: { type: 'string' } }, required: ['which'] },
  execute: ({ which }) => answers[which](),
});
</script></body></html>`

var directCases = []string{"object", "plain", "string", "jsonString", "undefined", "nan", "bigint", "nestedBigint", "date", "holes", "throws", "rejects", "cyclic", "later"}

// Native mode's direct calls (issue PERF2: the page world's witness runs
// execute, without the browser's executeTool) answer the agent what the
// calls through executeTool answer (the options page's switch), for every
// kind of value or failure a tool gives, and fire toolactivated as it does.
func TestDirectCallsAnswerAsExecuteTool(t *testing.T) {
	b := start(t, native)
	url := serveLoopback(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, directPage)
	}) + "/"
	tab := b.openBeside(url)
	b.waitTool("answers")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	type answer struct {
		Text    string
		IsError bool
		Struct  string
	}
	run := func() map[string]answer {
		out := map[string]answer{}
		for _, c := range directCases {
			res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "answers", Arguments: map[string]any{"which": c}})
			if err != nil {
				t.Fatalf("call answers(%s): %v", c, err)
			}
			s, _ := json.Marshal(res.StructuredContent)
			out[c] = answer{text(res), res.IsError, string(s)}
		}
		return out
	}
	direct := run()
	if got := eval[int](t, tab, `window.activated`); got != len(directCases) {
		t.Errorf("toolactivated fired %d times for %d direct calls", got, len(directCases))
	}
	b.setCallPath("executeTool")
	through := run()
	for _, c := range directCases {
		d, x := direct[c], through[c]
		// The browser's executeTool gives a generic error where the
		// page's execute failed; the bridge gives the page's own in both
		// ways (the witness), so the answers match there too.
		if d != x {
			t.Errorf("answers(%s): direct %+v, through executeTool %+v", c, d, x)
		}
	}
	if direct["throws"].Text == "" || !direct["throws"].IsError {
		t.Errorf("answers(throws) = %+v, want the page's error", direct["throws"])
	}
}
