package e2e

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	floorCalls = flag.Int("floor.calls", 1000, "BenchmarkFloor: calls per path one at a time, and echoes per hop")
	floorLoad  = flag.Int("floor.load", 2000, "BenchmarkFloor: calls per path at 16 in flight")
	floorMCPB  = flag.String("floor.mcpb", os.Getenv("WEBMCP_BENCH_MCPB"), "BenchmarkFloor: an npm prefix where @mcp-b/webmcp-local-relay and @mcp-b/global are installed (default $WEBMCP_BENCH_MCPB; empty: npm installs them into a temp folder; \"off\": no MCP-B column)")
)

// The MCP-B peer's packages, as measured in issue 23.
const (
	mcpbRelayPkg  = "@mcp-b/webmcp-local-relay@2.2.0"
	mcpbGlobalPkg = "@mcp-b/global@5.1.0"
)

// benchPath is one way to call an echo from an MCP client (or CDP).
type benchPath struct {
	name string
	call func(context.Context) error
	pids func() []int // its processes for CPU per call; nil: not counted
}

// BenchmarkFloor is issue 23's table: in one run, the demo's echo through
// the whole chain in both WebMCP modes, CDP's WebMCP.invokeTool in the
// native browser, MCP-B's relay (@mcp-b/webmcp-local-relay with
// @mcp-b/global in the page, installed by npm into a temp folder) and the
// floor path (startFloor: the same processes and hops with none of the
// bridge's logic), each in its own headless Chromium; every figure as a
// ratio to the floor and to CDP. Then each hop's floor (the floor path cut
// short at each hop, and stdio alone) beside the bridge's own traced hops.
// It prints the tables and writes floor.md beside the suite's results
// (-suite.out, default bench/).
//
//	./bench.sh -bench '^BenchmarkFloor$'
func BenchmarkFloor(b *testing.B) {
	if chromiumPath == "" {
		b.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium)")
	}
	for b.Loop() {
		md := benchFloor(b)
		fmt.Print(md)
		dir := *suiteOut
		if dir == "" {
			dir = filepath.Join(repoRoot, "bench")
		}
		if err := os.WriteFile(filepath.Join(dir, "floor.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFloor(b *testing.B) string {
	mach := describeMachine()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute) // a hang guard
	defer cancel()
	echoOf := func(br *bridge) func(context.Context) error {
		return func(ctx context.Context) error {
			res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
			if err != nil {
				return err
			}
			if res.IsError || text(res) != "x" {
				return fmt.Errorf("echo answered %.200q (error %v)", text(res), res.IsError)
			}
			return nil
		}
	}
	f := startFloor(b)
	nat := start(b, native)
	nat.openDemo("localhost")
	nat.waitTool("echo")
	// CDP in a browser of its own: with the WebMCP domain enabled, every
	// executeTool in the page (the native bridge's calls too) sends its
	// events to the CDP client, which would weigh on the bridge's figures.
	cdpBr := start(b, native)
	tab := cdpBr.openDemo("localhost")
	cdpBr.waitTool("echo")
	cdpt, err := newCDPTools(tab)
	if err != nil {
		b.Fatal(err)
	}
	poly := start(b, polyfill)
	poly.openDemo("localhost")
	poly.waitTool("echo")
	paths := []benchPath{
		{"floor path (bare echo, same hops)", func(ctx context.Context) error { return f.call(ctx, "echo") }, f.pids},
		{"CDP `WebMCP.invokeTool`", func(ctx context.Context) error {
			_, err := cdpt.invoke(ctx, "echo", []byte(`{"text":"x"}`))
			return err
		}, nil},
		{"the bridge, native mode", echoOf(nat), nat.pids},
		{"the bridge, polyfill mode", echoOf(poly), poly.pids},
	}
	var notes []string
	if peer, why := startMCPB(b); peer != nil {
		paths = append(paths, benchPath{"MCP-B relay 2.2.0 (`@mcp-b/global` 5.1.0 in the page)", peer.call, peer.pids})
		notes = append(notes, "MCP-B: "+peer.note)
	} else {
		notes = append(notes, "MCP-B: no column: "+why)
	}
	for range 50 { // warm up
		for _, p := range paths {
			if err := p.call(ctx); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
		}
	}

	// One at a time, the paths taking turns call by call.
	lat := make([][]time.Duration, len(paths))
	for i := range *floorCalls {
		for j := range paths {
			p := paths[(i+j)%len(paths)]
			k := (i + j) % len(paths)
			t0 := time.Now()
			if err := p.call(ctx); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
			lat[k] = append(lat[k], time.Since(t0))
		}
	}
	// 16 in flight: each path twice half its calls, taking turns.
	perSec := make([]float64, len(paths))
	cpu := make([]float64, len(paths))
	cpuKinds := make([]map[string]float64, len(paths))
	for range 2 {
		for j, p := range paths {
			var c0 map[string]float64
			if p.pids != nil {
				c0 = treeCPUByKind(p.pids()...)
			}
			st, err := load(ctx, 16, *floorLoad/2, p.call)
			if err != nil {
				b.Fatalf("%s, 16 in flight: %v", p.name, err)
			}
			perSec[j] += st.PerSec / 2
			if p.pids != nil {
				if cpuKinds[j] == nil {
					cpuKinds[j] = map[string]float64{}
				}
				for k, c := range treeCPUByKind(p.pids()...) {
					cpu[j] += c - c0[k]
					cpuKinds[j][k] += c - c0[k]
				}
			}
		}
	}

	var out strings.Builder
	fmt.Fprintf(&out, "# The chain beside its floor, CDP and MCP-B\n\n%s; tree %s; %s; %d × %s; load average at start %s, at the end %s.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), mach.Tree, mach.Chromium, mach.CPUs, mach.CPUModel, mach.LoadAvg, describeMachine().LoadAvg)
	if busy(mach.LoadAvg) {
		out.WriteString("\n**Taken on a busy machine (load average above 1 at the start): the ratios between paths of this run hold better than the times; re-run on a quiet machine for figures to quote.**\n")
	}
	fmt.Fprintf(&out, "\n`./bench.sh -bench '^BenchmarkFloor$'`: the demo's echo (`{\"text\":\"x\"}`) through each path, each path in its own headless Chromium, in one run. One at a time: %d calls per path, the paths taking turns call by call. 16 in flight: %d calls per path, in two halves taking turns. CPU per call: the path's browser with all its child processes (the native host too) and its MCP server, not the MCP client (the same for all); CDP's is left out (its client is this test).\n\n", *floorCalls, *floorLoad)
	out.WriteString("| path | p50 | p99 | p50 × floor | p50 × CDP | p99 × floor | calls/s, 16 in flight | × floor | CPU per call, 16 in flight | × floor |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fp50, fp99 := percentiles(lat[0])
	cp50, _ := percentiles(lat[1])
	for j, p := range paths {
		p50, p99 := percentiles(lat[j])
		cpuCell, cpuRatio := "", ""
		if p.pids != nil {
			per := cpu[j] * 1000 / float64(*floorLoad)
			cpuCell = fmt.Sprintf("%.2f ms", per)
			cpuRatio = fmt.Sprintf("%.2f×", cpu[j]/max(cpu[0], 0.01))
		}
		fmt.Fprintf(&out, "| %s | %s | %s | %.2f× | %.2f× | %.2f× | %.0f | %.2f× | %s | %s |\n",
			p.name, fmtDur(p50), fmtDur(p99), float64(p50)/float64(fp50), float64(p50)/float64(cp50), float64(p99)/float64(fp99),
			perSec[j], perSec[j]/perSec[0], cpuCell, cpuRatio)
	}
	for _, n := range notes {
		fmt.Fprintf(&out, "\n%s\n", n)
	}
	out.WriteString(cpuByProcess(paths, cpuKinds, *floorLoad))

	// Each hop's floor: the floor path cut short at each hop (the test on
	// the host's socket), and stdio alone, taking turns echo by echo.
	hops := []struct{ name, to string }{{"socket", "host"}, {"worker", "worker"}, {"content", "content"}, {"main", "main"}, {"stdio", ""}}
	cut := map[string][]time.Duration{}
	for range *floorCalls {
		for _, h := range hops {
			t0 := time.Now()
			var err error
			if h.to == "" {
				err = f.call(ctx, "direct")
			} else {
				err = f.conn.echo(h.to)
			}
			if err != nil {
				b.Fatalf("floor echo to %s: %v", h.name, err)
			}
			cut[h.name] = append(cut[h.name], time.Since(t0))
		}
	}
	p50 := func(name string) time.Duration { a, _ := percentiles(cut[name]); return a }
	p99 := func(name string) time.Duration { _, z := percentiles(cut[name]); return z }
	fmt.Fprintf(&out, "\n## Each hop's floor\n\nEchoes cut short at each hop of the floor path, %d each, taking turns (the test writes lines on the floor host's Unix socket; stdio alone is an MCP call that the floor's server answers at once):\n\n| echo, round trip | p50 | p99 |\n|---|---:|---:|\n", *floorCalls)
	for _, r := range []struct{ what, name string }{
		{"MCP stdio alone (client → server answering at once)", "stdio"},
		{"Unix socket: test → native host → back", "socket"},
		{"… → worker → back (native messaging)", "worker"},
		{"… → worker → content script → back (runtime Port)", "content"},
		{"… → content script → main world → back (MessageChannel)", "main"},
	} {
		fmt.Fprintf(&out, "| %s | %s | %s |\n", r.what, fmtDur(p50(r.name)), fmtDur(p99(r.name)))
	}

	// The bridge's traced hops beside them: each link both ways (p50s
	// added up), against the difference its floor adds.
	floorOf := map[string]time.Duration{
		"stdio": p50("stdio"), "socket": p50("socket"),
		"nm": p50("worker") - p50("socket"), "port": p50("content") - p50("worker"), "mc": p50("main") - p50("content"),
	}
	links := []struct {
		what, key string
		segs      []string
	}{
		{"MCP stdio and the SDK, both ways", "stdio", []string{"client→shim.in", "shim.done→client"}},
		{"Unix socket, both ways", "socket", []string{"shim.out→host.call", "host.answer→shim.back"}},
		{"native messaging, both ways", "nm", []string{"host.call→worker.in", "worker.back→host.answer"}},
		{"runtime Port, both ways", "port", []string{"worker.out→relay.in", "relay.back→worker.back"}},
		{"isolated ⇄ main world, both ways", "mc", []string{"relay.in→main.in", "main.out→relay.back"}},
		{"the bridge's own work (shim, worker, main world, the tool)", "", []string{"shim.in→shim.out", "shim.back→shim.done", "worker.in→worker.out", "main.in→page.done", "page.done→main.out"}},
	}
	fmt.Fprintf(&out, "\n## The bridge's hops against their floors\n\n%d traced calls per mode (`_meta` trace marks, as in hops.md), p50s of each direction added up; a hop's floor is what that hop adds to the floor path cut short (e.g. native messaging: the worker echo's p50 minus the socket echo's). The extension's marks are in 0.1 ms steps (performance.now() coarsened), so its rows are rough.\n\n| link | floor | native | × floor | polyfill | × floor |\n|---|---:|---:|---:|---:|---:|\n", *floorCalls/2)
	_, natSegs, _ := traceHops(b, nat, *floorCalls/2)
	_, polySegs, _ := traceHops(b, poly, *floorCalls/2)
	sum := func(segs map[string][]time.Duration, names []string) time.Duration {
		var t time.Duration
		for _, n := range names {
			a, _ := percentiles(segs[n])
			t += a
		}
		return t
	}
	for _, l := range links {
		n, p := sum(natSegs, l.segs), sum(polySegs, l.segs)
		if l.key == "" {
			fmt.Fprintf(&out, "| %s | none | %s |  | %s |  |\n", l.what, fmtDur(n), fmtDur(p))
			continue
		}
		fl := floorOf[l.key]
		fmt.Fprintf(&out, "| %s | %s | %s | %.1f× | %s | %.1f× |\n", l.what, fmtDur(fl), fmtDur(n), ratio(n, fl), fmtDur(p), ratio(p, fl))
	}
	return out.String()
}

// ratio is a / b, or 0 when b is not positive (a floor lost in the noise).
func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// busy says whether a load average ("1.2 0.8 0.5") starts above 1.
func busy(loadavg string) bool {
	var l float64
	_, err := fmt.Sscan(loadavg, &l)
	return err == nil && l > 1
}

// mcpbPeer is MCP-B's relay driven by an MCP client, with a page in a
// headless Chromium that registers the echo tool through @mcp-b/global
// and loads the relay's embed.js.
type mcpbPeer struct {
	client  *mcp.ClientSession
	browser context.Context
	relay   *exec.Cmd
	note    string
	// The call that call makes: the tool, its arguments and the text it answers.
	tool string
	args map[string]any
	want string
}

func (p *mcpbPeer) call(ctx context.Context) error {
	res, err := p.client.CallTool(ctx, &mcp.CallToolParams{Name: p.tool, Arguments: p.args})
	if err != nil {
		return fmt.Errorf("MCP-B %s: %w", p.tool, err)
	}
	if res.IsError || text(res) != p.want {
		return fmt.Errorf("MCP-B %s answered %.200q (error %v), want %q", p.tool, text(res), res.IsError, p.want)
	}
	return nil
}

func (p *mcpbPeer) pids() []int {
	return []int{chromedp.FromContext(p.browser).Browser.Process().Pid, p.relay.Process.Pid}
}

// The MCP-B peer's page: a tool through @mcp-b/global (%s: its
// registration), then the relay's embed script (its widget iframe opens
// the WebSocket, on port %d).
const mcpbPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>MCP-B peer</title><script src="/global.js"></script></head>
<body>
<script>
%s
</script>
<script src="/relay/embed.js" data-relay-port="%d"></script>
</body></html>
`

// echoTool is the demo's echo tool, as a page registers it.
const echoTool = `document.modelContext.registerTool({
  name: 'echo', description: 'Echoes the text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute({ text }) { return { content: [{ type: 'text', text }] }; },
});`

// startMCPB starts the MCP-B peer with the echo tool in its page.
func startMCPB(b *testing.B) (*mcpbPeer, string) {
	p, why := startMCPBWith(b, echoTool, "echo")
	if p != nil {
		p.tool, p.args, p.want = "echo", map[string]any{"text": "x"}, "x"
	}
	return p, why
}

// startMCPBWith starts the MCP-B peer, its page registering a tool with
// toolJS and the relay listing the tool named name, installing its
// packages with npm into a temp folder unless -floor.mcpb names a prefix
// where they are; nil and why when it cannot (no npm, no registry, or
// -floor.mcpb off).
func startMCPBWith(b *testing.B, toolJS, name string) (*mcpbPeer, string) {
	prefix := *floorMCPB
	switch {
	case prefix == "off":
		return nil, "-floor.mcpb off"
	case os.Getenv("CI") != "":
		return nil, "not in CI (it installs from the npm registry)"
	case prefix == "":
		npm, err := exec.LookPath("npm")
		if err != nil {
			return nil, "npm is not installed"
		}
		prefix = b.TempDir()
		cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel", "error", mcpbRelayPkg, mcpbGlobalPkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Sprintf("npm install %s %s failed (%v): %.300s", mcpbRelayPkg, mcpbGlobalPkg, err, out)
		}
	}
	mods := filepath.Join(prefix, "node_modules", "@mcp-b")
	cli := filepath.Join(mods, "webmcp-local-relay", "dist", "cli.js")
	global := filepath.Join(mods, "global", "dist", "index.iife.js")
	for _, f := range []string{cli, global} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Sprintf("the package is not there: %v", err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, "node is not installed"
	}
	// A free port for the relay's WebSocket.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	relayPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	web, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, mcpbPage, toolJS, relayPort)
	})
	mux.HandleFunc("/global.js", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, global) })
	mux.Handle("/relay/", http.StripPrefix("/relay/", http.FileServer(http.Dir(filepath.Join(mods, "webmcp-local-relay", "dist", "browser")))))
	srv := &http.Server{Handler: mux}
	go srv.Serve(web)
	b.Cleanup(func() { srv.Close() })
	pageURL := fmt.Sprintf("http://localhost:%d/", web.Addr().(*net.TCPAddr).Port)

	logs := &logBuffer{}
	b.Cleanup(func() {
		if b.Failed() || *verbose {
			b.Logf("MCP-B logs:\n%s", logs.String())
		}
	})
	p := &mcpbPeer{}
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-mcpb", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	p.relay = exec.Command(node, cli, "--port", fmt.Sprint(relayPort))
	p.relay.Stderr = logs.prefixed("relay: ")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: p.relay}, nil)
	if err != nil {
		return nil, fmt.Sprintf("start the relay: %v", err)
	}
	b.Cleanup(func() { cs.Close() })
	p.client = cs

	// Without the browser's own WebMCP: @mcp-b/global then installs its
	// polyfill and navigator.modelContextTesting, which the relay's embed
	// calls (with the browser's WebMCP on, Chromium 156 has neither
	// navigator.modelContext.callTool nor modelContextTesting, and the embed
	// finds no runtime).
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(b.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("enable-features", "NetworkService,NetworkServiceInProcess"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.CombinedOutput(logs.prefixed("chromium: ")),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b.Cleanup(cancelAlloc)
	p.browser, _ = chromedp.NewContext(allocCtx)
	b.Cleanup(func() { chromedp.Cancel(p.browser) })
	if err := chromedp.Do(p.browser, chromedp.Navigate(pageURL)); err != nil {
		return nil, fmt.Sprintf("open the MCP-B page: %v", err)
	}
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return nil, fmt.Sprintf("list the relay's tools: %v", err)
		}
		for _, t := range res.Tools {
			if t.Name == name {
				runtime, _ := chromedp.Run(p.browser, chromedp.Evaluate[string](`typeof navigator.modelContext?.callTool === 'function' ? 'navigator.modelContext.callTool' : 'navigator.modelContextTesting.executeTool'`))
				p.note = fmt.Sprintf("%s and %s from the npm registry; the relay under %s; in the page its embed calls the tool through %s.", mcpbRelayPkg, mcpbGlobalPkg, nodeVersion(node), runtime)
				return p, ""
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			state, _ := chromedp.Run(p.browser, chromedp.Evaluate[string](`JSON.stringify({documentModelContext: typeof document.modelContext, navigatorModelContext: typeof navigator.modelContext, callTool: typeof navigator.modelContext?.callTool, testing: typeof navigator.modelContextTesting, widget: !!document.querySelector('[data-webmcp-relay]')})`))
			return nil, fmt.Sprintf("the relay never listed the page's %s tool (the page: %s); logs:\n%s", name, state, logs.String())
		}
	}
}

func nodeVersion(node string) string {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "node"
	}
	return "Node " + strings.TrimSpace(string(out))
}

// cpuByProcess is the CPU time per call at 16 in flight of each path's
// processes, by kind, as a markdown section (a path without processes is
// left out).
func cpuByProcess(paths []benchPath, kinds []map[string]float64, calls int) string {
	var cols []int
	seen := map[string]bool{}
	var rows []string
	for j, k := range kinds {
		if k == nil {
			continue
		}
		cols = append(cols, j)
		for kind, c := range k {
			if !seen[kind] && c*1000/float64(calls) >= 0.005 {
				seen[kind] = true
				rows = append(rows, kind)
			}
		}
	}
	slices.Sort(rows)
	var out strings.Builder
	out.WriteString("\n## CPU per call by process, 16 in flight\n\nThe same calls as the table's CPU column, by the process that spent the time (the MCP client, this test, is left out).\n\n| process |")
	for _, j := range cols {
		fmt.Fprintf(&out, " %s |", paths[j].name)
	}
	out.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&out, "| %s |", r)
		for _, j := range cols {
			fmt.Fprintf(&out, " %.3f ms |", kinds[j][r]*1000/float64(calls))
		}
		out.WriteString("\n")
	}
	return out.String()
}
