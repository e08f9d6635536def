package e2e

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	threeRuns  = flag.Int("threeway.runs", 3, "BenchmarkThreeWay: runs")
	threeCalls = flag.Int("threeway.calls", 1000, "BenchmarkThreeWay: calls per path and run, for each figure")
	threeCDP   = flag.String("threeway.cdp", "same", "BenchmarkThreeWay: where CDP calls the tool: \"same\" (the bridge's page, its WebMCP domain on there) or \"own\" (a browser of its own)")
	threeVia   = flag.String("threeway.via", "direct", "BenchmarkThreeWay: how native mode runs a call: \"direct\" (the default: the page world's witness runs execute) or \"executeTool\" (the options page's switch on: through the browser's executeTool, as before issue PERF2's direct calls)")
)

// sumTool is the three-way benchmark's tool, the same in every page.
const sumTool = `document.modelContext.registerTool({
  name: 'sum_numbers', description: 'Adds two numbers a and b and returns the sum.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  async execute({ a, b }) { return { content: [{ type: 'text', text: String(a + b) }] }; },
});`

// serveSumPage serves a page with sumTool on 127.0.0.1 (a site allowed by
// default) and returns its URL.
func serveSumPage(t testing.TB) string {
	return serveLoopback(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>sum</title></head><body><script>%s</script></body></html>", sumTool)
	}) + "/"
}

// BenchmarkThreeWay is the setting of issue PERF2's three-way benchmark, as
// far as it can be built here: sum_numbers({a: 20, b: 22}) through the
// bridge in native mode, through MCP-B's relay and through CDP's
// WebMCP.invokeTool, interleaved call by call, in runs of -threeway.calls
// calls per path (3 runs); then, per path and run, calls/s with 16 and
// with 1 in flight, and the CPU per call at 16 in flight. The bridge and
// CDP share one headless Chromium and one page (-threeway.cdp own: CDP in
// a browser of its own); MCP-B runs in a Chromium of its own, without the
// browser's WebMCP (with it on, its embed finds nothing to call). The
// bridge's polyfill mode runs beside them, in its own browser. It prints
// one table and writes threeway.md beside the suite's results (-suite.out,
// default bench/).
//
//	./bench.sh -bench '^BenchmarkThreeWay$'
//	./bench.sh -bench '^BenchmarkThreeWay$' -threeway.via executeTool
func BenchmarkThreeWay(b *testing.B) {
	if chromiumPath == "" {
		b.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium)")
	}
	for b.Loop() {
		md := benchThreeWay(b)
		fmt.Print(md)
		dir := *suiteOut
		if dir == "" {
			dir = filepath.Join(repoRoot, "bench")
		}
		if err := os.WriteFile(filepath.Join(dir, "threeway.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchThreeWay(b *testing.B) string {
	mach := describeMachine()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute) // a hang guard
	defer cancel()
	args := map[string]any{"a": 20, "b": 22}
	sumOf := func(br *bridge) func(context.Context) error {
		return func(ctx context.Context) error {
			res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "sum_numbers", Arguments: args})
			if err != nil {
				return err
			}
			if res.IsError || text(res) != "42" {
				return fmt.Errorf("sum_numbers answered %.200q (error %v)", text(res), res.IsError)
			}
			return nil
		}
	}
	nat := start(b, native)
	if *threeVia != "direct" {
		nat.setCallPath(*threeVia)
	}
	tab := nat.openBeside(serveSumPage(b))
	nat.waitTool("sum_numbers")
	cdpTab := tab
	if *threeCDP == "own" {
		own := start(b, native)
		cdpTab = own.openBeside(serveSumPage(b))
		own.waitTool("sum_numbers")
	}
	cdpt, err := newCDPTools(cdpTab)
	if err != nil {
		b.Fatal(err)
	}
	poly := start(b, polyfill)
	poly.openBeside(serveSumPage(b))
	poly.waitTool("sum_numbers")
	paths := []benchPath{
		{"the bridge, native mode" + map[bool]string{true: " (through `executeTool`)"}[*threeVia == "executeTool"], sumOf(nat), nat.pids},
		{"CDP `WebMCP.invokeTool`", func(ctx context.Context) error {
			e, err := cdpt.invoke(ctx, "sum_numbers", []byte(`{"a":20,"b":22}`))
			if err == nil && !strings.Contains(string(e.Output), "42") {
				err = fmt.Errorf("CDP sum_numbers answered %s", e.Output)
			}
			return err
		}, nil},
	}
	var notes []string
	if peer, why := startMCPBWith(b, sumTool, "sum_numbers"); peer != nil {
		peer.tool, peer.args, peer.want = "sum_numbers", args, "42"
		paths = append(paths, benchPath{"MCP-B relay 2.2.0", peer.call, peer.pids})
		notes = append(notes, "MCP-B: "+peer.note)
	} else {
		notes = append(notes, "MCP-B: no column: "+why)
	}
	paths = append(paths, benchPath{"the bridge, polyfill mode", sumOf(poly), poly.pids})
	for range 50 { // warm up
		for _, p := range paths {
			if err := p.call(ctx); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
		}
	}

	n := *threeCalls
	lat := make([][]time.Duration, len(paths))
	at16 := make([][]float64, len(paths))
	at1 := make([][]float64, len(paths))
	cpu := make([]float64, len(paths))
	for range *threeRuns {
		// One at a time, the paths taking turns call by call.
		for i := range n {
			for j := range paths {
				k := (i + j) % len(paths)
				t0 := time.Now()
				if err := paths[k].call(ctx); err != nil {
					b.Fatalf("%s: %v", paths[k].name, err)
				}
				lat[k] = append(lat[k], time.Since(t0))
			}
		}
		for j, p := range paths {
			var c0 map[string]float64
			if p.pids != nil {
				c0 = treeCPUByKind(p.pids()...)
			}
			st, err := load(ctx, 16, n, p.call)
			if err != nil {
				b.Fatalf("%s, 16 in flight: %v", p.name, err)
			}
			at16[j] = append(at16[j], st.PerSec)
			if p.pids != nil {
				for k, c := range treeCPUByKind(p.pids()...) {
					cpu[j] += c - c0[k]
				}
			}
			st, err = load(ctx, 1, n, p.call)
			if err != nil {
				b.Fatalf("%s, 1 in flight: %v", p.name, err)
			}
			at1[j] = append(at1[j], st.PerSec)
		}
	}

	var out strings.Builder
	fmt.Fprintf(&out, "# Three ways to call a page's tool\n\n%s; tree %s; %s; %d × %s; load average at start %s, at the end %s.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), mach.Tree, mach.Chromium, mach.CPUs, mach.CPUModel, mach.LoadAvg, describeMachine().LoadAvg)
	if busy(mach.LoadAvg) {
		out.WriteString("\n**Taken on a busy machine (load average above 1 at the start): re-run on a quiet machine for figures to quote.**\n")
	}
	where := "the bridge's own page (its WebMCP domain on there, as a CDP agent needs)"
	if *threeCDP == "own" {
		where = "a page of its own, in a browser of its own"
	}
	fmt.Fprintf(&out, "\n`./bench.sh -bench '^BenchmarkThreeWay$'`: `sum_numbers({a: 20, b: 22})` through each path; %d runs of %d calls per path and figure: one at a time, the paths taking turns call by call (p50, p99 over all runs), then each path alone with 16 and with 1 in flight (calls/s, the median run). CDP calls the tool in %s. CPU per call: the path's browser with all its child processes (the native host too) and its MCP server, at 16 in flight; a path that shares its browser shares its CPU figure.\n\n", *threeRuns, n, where)
	out.WriteString("| path | p50 | p99 | calls/s, 16 in flight | calls/s, 1 in flight | CPU per call, 16 in flight |\n|---|---:|---:|---:|---:|---:|\n")
	for j, p := range paths {
		p50, p99 := percentiles(lat[j])
		cpuCell := ""
		if p.pids != nil {
			cpuCell = fmt.Sprintf("%.2f ms", cpu[j]*1000/float64(n**threeRuns))
		}
		fmt.Fprintf(&out, "| %s | %s | %s | %.0f | %.0f | %s |\n", p.name, fmtDur(p50), fmtDur(p99), medianRate(at16[j]), medianRate(at1[j]), cpuCell)
	}
	if len(paths) == 4 {
		bp50, bp99 := percentiles(lat[0])
		mp50, mp99 := percentiles(lat[2])
		fmt.Fprintf(&out, "\nNative mode against MCP-B: p50 %.2f×, p99 %.2f×, calls/s at 16 in flight %.2f×, at 1 in flight %.2f×.\n",
			float64(bp50)/float64(mp50), float64(bp99)/float64(mp99), medianRate(at16[0])/medianRate(at16[2]), medianRate(at1[0])/medianRate(at1[2]))
	}
	for _, n := range notes {
		fmt.Fprintf(&out, "\n%s\n", n)
	}
	return out.String()
}

// medianRate is the middle of v (the mean of the two middle ones).
func medianRate(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// setCallPath sets how native mode runs calls ("direct" or "executeTool",
// worker/callpath.js), from a page of the extension as the options page
// does.
func (b *bridge) setCallPath(value string) {
	b.t.Helper()
	page := b.openUI("ui/activity.html")
	got := eval[string](b.t, page, `chrome.runtime.sendMessage({type: "callPath.set", value: `+mustJSON(value)+`}).then(r => r.ok ? r.value.value : r.error)`)
	if got != value {
		b.t.Fatalf("set the call path to %s: %s", value, got)
	}
}
