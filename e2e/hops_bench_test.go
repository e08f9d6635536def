package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/profiling"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

var (
	hopsCalls = flag.Int("hops.calls", 500, "BenchmarkHops: traced calls per WebMCP mode")
	hopsPprof = flag.String("hops.pprof", "", "BenchmarkHops: a directory for CPU profiles of webmcp-host and webmcp-shim (go tool pprof -top <binary> <profile>)")
)

// BenchmarkHops is the per-hop profile: it calls the demo's echo tool one
// call at a time with a trace (_meta "dev.webmcp/trace"), so that every hop
// adds its timing mark on the way to the page and back (protocol.Mark), and
// prints where each call's time goes, p50 and p99 per hop, in each WebMCP
// mode, and how much CPU each process spends per call with 16 calls in
// flight; it writes the tables to hops.md beside the suite's results. With
// -hops.pprof DIR, webmcp-host and webmcp-shim also write CPU profiles of
// their lives there ($WEBMCP_CPUPROFILE).
//
//	./bench.sh -bench '^BenchmarkHops$'   (or go test ./e2e -run '^$' -bench Hops -benchtime 1x)
func BenchmarkHops(b *testing.B) {
	if *hopsPprof != "" {
		// The host (through Chromium) and the shim inherit it.
		b.Setenv(profiling.Env, *hopsPprof)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# Where a call's time goes\n\n%s; %d traced calls of the demo's echo tool per mode, one at a time (`./bench.sh -bench '^BenchmarkHops$'`). Each row is the time between two marks; the marks of the shim, the host and the extension are taken in their own processes on one clock.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), *hopsCalls)
	for _, m := range modes {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				out.WriteString(benchHops(b, m, *hopsCalls))
			}
		})
	}
	fmt.Print(out.String())
	dir := *suiteOut
	if dir == "" {
		dir = filepath.Join(repoRoot, "bench")
	}
	if err := os.WriteFile(filepath.Join(dir, "hops.md"), []byte(out.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

// The hops of a traced call, in order, and what each segment between two
// marks stands for.
var hopNames = map[string]string{
	"client→shim.in":          "MCP client → shim: stdio, the SDK's decoding",
	"shim.in→shim.out":        "shim: argument check, routing",
	"shim.out→host.call":      "shim → host: Unix socket",
	"host.call→worker.in":     "host → service worker: native messaging",
	"worker.in→worker.out":    "worker: routing, consent, activity",
	"worker.out→relay.in":     "worker → frame's relay: runtime Port",
	"relay.in→main.in":        "relay → main world: MessageChannel",
	"main.in→page.done":       "the tool's execute (native: run by the page world's witness, asked by DOM event)",
	"page.done→main.out":      "main world: the result as JSON value",
	"main.out→relay.back":     "main world → relay: MessageChannel",
	"relay.back→worker.back":  "relay → worker: runtime Port",
	"worker.back→host.answer": "worker → host: native messaging",
	"host.answer→shim.back":   "host → shim: Unix socket",
	"shim.back→shim.done":     "shim: the MCP result",
	"shim.done→client":        "shim → MCP client: the SDK, stdio",
}

func benchHops(b *testing.B, m mode, n int) string {
	br := start(b, m)
	tab, _ := br.open(demoURL("localhost", "/"))
	eval[any](b, tab, `window.demo.ready`)
	br.waitTool("echo")
	ctx := context.Background()
	order, segs, totals := traceHops(b, br, n)
	// CPU per call of each process, 16 calls in flight (untraced).
	plain := func(ctx context.Context) error {
		res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("echo: %s", text(res))
		}
		return err
	}
	if _, err := load(ctx, 16, 200, plain); err != nil {
		b.Fatal(err)
	}
	before := usages()
	st, err := load(ctx, 16, 2000, plain)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTable(before, usages(), 2000)

	var t strings.Builder
	p50, p99 := percentiles(totals)
	fmt.Fprintf(&t, "\n## %s mode: round trip p50 %s, p99 %s\n\n| hop | what | p50 | p99 |\n|---|---|---:|---:|\n", m, fmtDur(p50), fmtDur(p99))
	for _, name := range order {
		a, z := percentiles(segs[name])
		fmt.Fprintf(&t, "| %s | %s | %s | %s |\n", name, hopNames[name], fmtDur(a), fmtDur(z))
	}
	fmt.Fprintf(&t, "\nCPU time per call, 2,000 calls 16 at a time (%.0f calls/s; the machine's CPU time, all processes; system calls are reads and writes, context switches those of all threads):\n\n%s%s", st.PerSec, cpuTableHead, cpu)
	return t.String()
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000)
}

// traceHops makes n traced calls of the demo's echo tool (after 20 to warm
// up), one at a time, and returns the time between each two marks, per
// segment in the order of the hops, and each call's round trip.
func traceHops(b testing.TB, br *bridge, n int) (order []string, segs map[string][]time.Duration, totals []time.Duration) {
	ctx := context.Background()
	segs = map[string][]time.Duration{}
	call := func() {
		sent := time.Now()
		res, err := br.client.CallTool(ctx, &mcp.CallToolParams{
			Name: "echo", Arguments: map[string]any{"text": "x"}, Meta: mcp.Meta{shim.TraceMetaKey: true},
		})
		got := time.Now()
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %v", err, res)
		}
		raw, _ := json.Marshal(res.Meta[shim.TraceMetaKey])
		var marks []protocol.Mark
		if err := json.Unmarshal(raw, &marks); err != nil || len(marks) < 2 {
			b.Fatalf("no trace in the result's _meta: %s", raw)
		}
		at := func(ms float64) time.Time { return time.UnixMicro(int64(ms * 1000)) }
		add := func(name string, d time.Duration) {
			if _, ok := segs[name]; !ok {
				order = append(order, name)
			}
			segs[name] = append(segs[name], d)
		}
		add("client→"+marks[0].Hop, at(marks[0].At).Sub(sent))
		for i := 1; i < len(marks); i++ {
			add(marks[i-1].Hop+"→"+marks[i].Hop, at(marks[i].At).Sub(at(marks[i-1].At)))
		}
		add(marks[len(marks)-1].Hop+"→client", got.Sub(at(marks[len(marks)-1].At)))
		totals = append(totals, got.Sub(sent))
	}
	for range 20 {
		call()
	}
	clear(segs)
	order, totals = nil, nil
	for range n {
		call()
	}
	return order, segs, totals
}
