package e2e

import (
	"flag"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var hookRuns = flag.Int("hook.runs", 100, "BenchmarkContextHook: prompt-hook runs per source")

// hookBenchPage has a context provider and a read-only tool that both say
// window.seq; the tool answers after 10 ms, as a page's tool that reads its
// own state would. That timer is the work the benchmark measures around
// (issue CTX2: "one context tool answering in 10 ms"), not a wait for an
// event; this is a benchmark, never a pass/fail test.
const hookBenchPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hook bench</title></head><body>
<script>
window.seq = 0;
const mc = document.modelContext || navigator.modelContext;
mc.registerContextProvider({id: "bench.selection", description: "The bench's sequence number.",
  getContext: () => ({summary: "seq " + window.seq, data: {seq: window.seq}})});
mc.registerTool({name: "bench_get_selection", description: "The bench's sequence number.",
  inputSchema: {type: "object", properties: {}}, annotations: {readOnlyHint: true},
  execute: () => new Promise((resolve) => setTimeout(() => resolve({summary: "seq " + window.seq, data: {seq: window.seq}}), 10))})
  .then(() => { document.body.dataset.ready = "true"; });
</script></body></html>`

// BenchmarkContextHook times webmcp-shim context --hook claude, as Claude
// Code's UserPromptSubmit hook runs it before every prompt, from the
// command's start to its exit with the block printed: with the page's
// context coming from a provider, and from a page tool sampled as context
// that answers in 10 ms (issue CTX2's target: within 30 ms of the
// provider's). Before each run the page's state changes; "fresh" counts the
// runs whose block carried the new state.
//
//	go test ./e2e -run '^$' -bench ContextHook -benchtime 1x
func BenchmarkContextHook(b *testing.B) {
	for _, m := range modes {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				benchContextHook(b, m)
			}
		})
	}
}

func benchContextHook(b *testing.B, m mode) {
	br := start(b, m)
	origin := serveLoopback(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, hookBenchPage)
	})
	tab, _ := br.open(strings.Replace(origin, "127.0.0.1", "localhost", 1) + "/")
	focus(b, tab)
	waitPage(b, tab, `document.body.dataset.ready === "true"`)
	br.waitTool("bench_get_selection")
	shim := filepath.Join(installDir, "bin", "webmcp-shim")
	env := []string{"WEBMCP_RUNTIME_DIR=" + br.runtimeDir, "HOME=" + installDir, "XDG_CONFIG_HOME="}

	run := func(source, line string) (p50, p99 time.Duration, fresh int) {
		var took []time.Duration
		for i := 0; i < *hookRuns; i++ {
			seq := eval[int](b, tab, `++window.seq`)
			cmd := exec.Command(shim, "context", "--hook", "claude")
			cmd.Env = append(cmd.Environ(), env...)
			begin := time.Now()
			out, err := cmd.Output()
			took = append(took, time.Since(begin))
			if err != nil {
				b.Fatalf("webmcp-shim context --hook claude: %v", err)
			}
			if strings.Contains(string(out), fmt.Sprintf("%s: seq %d", line, seq)) {
				fresh++
			}
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		p50, p99 = took[len(took)/2], took[(len(took)*99)/100]
		fmt.Printf("%s, context from %s: p50 %.1f ms, p99 %.1f ms, fresh %d of %d\n", m, source, ms(p50), ms(p99), fresh, len(took))
		return p50, p99, fresh
	}

	pp50, pp99, _ := run("a provider", "bench.selection")
	if out, err := br.shimCLI("context-tools", "on", "bench_get_selection"); err != nil {
		b.Fatalf("webmcp-shim context-tools on bench_get_selection: %v: %s", err, out)
	}
	// The provider stays; its line and the tool's are both in each block.
	tp50, tp99, _ := run("a tool answering in 10 ms", "bench_get_selection")
	b.ReportMetric(ms(pp50), "provider-p50-ms")
	b.ReportMetric(ms(pp99), "provider-p99-ms")
	b.ReportMetric(ms(tp50), "tool-p50-ms")
	b.ReportMetric(ms(tp99), "tool-p99-ms")
	fmt.Printf("%s: the tool adds %.1f ms at p50, %.1f ms at p99 (target: within 30 ms)\n", m, ms(tp50-pp50), ms(tp99-pp99))
}
