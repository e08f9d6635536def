package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	cdpwebmcp "github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
)

// The knobs of BenchmarkSuite; bench.sh passes its arguments on, e.g.
// ./bench.sh -suite.calls 300 -suite.out /tmp/bench.
var (
	suiteOut      = flag.String("suite.out", os.Getenv("WEBMCP_BENCH_OUT"), "BenchmarkSuite: the folder for results.json, results.md and latency.svg (default $WEBMCP_BENCH_OUT, else bench/ in the repository)")
	suiteCalls    = flag.Int("suite.calls", 1000, "BenchmarkSuite: calls per path for the round trip latencies")
	suiteLoad     = flag.Int("suite.load", 2000, "BenchmarkSuite: calls per path at each number of calls in flight")
	suiteEvents   = flag.Int("suite.events", 20, "BenchmarkSuite: how many times to time registerTool, a click and a shim start")
	suiteMemCalls = flag.Int("suite.memcalls", 10000, "BenchmarkSuite: calls between the idle and the loaded memory figures")
	suiteSizes    = flag.Bool("suite.sizes", true, "BenchmarkSuite: time the big arguments (1 and 16 MiB) and results (1 and 64 MiB)")
)

// BenchmarkSuite is the benchmark command of issue 13 (./bench.sh): in one
// run against real Chromium, the demo app's trivial echo tool through the
// whole chain (MCP client → webmcp-shim → webmcp-host → extension → page)
// in both WebMCP modes, beside CDP's WebMCP.invokeTool and the page's own
// executeTool; throughput at 1, 4, 16 and 64 calls in flight; registerTool
// → tools/list_changed; a click → resources/updated; shim start →
// initialize and → tools listed; the memory and open files of host and
// shim, idle and after 10,000 calls; big arguments and results. It prints
// a table, with each figure's ratio to CDP and the targets, and
// writes results.json, results.md and latency.svg into bench/ (-suite.out).
// Figures are benchmarks, never pass/fail: a missed target is only marked.
//
//	go test ./e2e -run '^$' -bench '^BenchmarkSuite$' -benchtime 1x -count 1 -timeout 30m
func BenchmarkSuite(b *testing.B) {
	if chromiumPath == "" {
		b.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium)")
	}
	rep := &suiteReport{
		Date:    time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Machine: describeMachine(), // the load average before the suite's own load
		Params: map[string]int{
			"latency calls": *suiteCalls, "calls per level": *suiteLoad, "event repeats": *suiteEvents,
			"calls for memory": *suiteMemCalls, "flat memory, KiB": flatKiB,
		},
	}
	nat := &modeFigures{Levels: map[int]loadStats{}, CDPLevels: map[int]loadStats{}}
	poly := &modeFigures{Levels: map[int]loadStats{}}
	var errMu sync.Mutex
	fail := func(what string, err error) {
		errMu.Lock()
		defer errMu.Unlock()
		rep.Errors = append(rep.Errors, what+": "+err.Error())
		b.Logf("%s: %v", what, err)
	}
	began := time.Now()
	b.Run("native", func(b *testing.B) { suiteMode(b, native, nat, fail) })
	b.Run("polyfill", func(b *testing.B) { suiteMode(b, polyfill, poly, fail) })
	for _, m := range []struct {
		name string
		f    *modeFigures
	}{{"native", nat}, {"polyfill", poly}} {
		if !m.f.Done {
			rep.Errors = append(rep.Errors, m.name+": the run stopped early (see the log above); the figures it did not reach are blank")
		}
	}

	buildReport(rep, nat, poly)
	rep.Levels = buildLevels(nat, poly)
	rep.Notes = append(rep.Notes,
		"The trivial tool is the demo app's echo ({\"text\":\"x\"}); every path calls it in the same kind of page. CDP (WebMCP.invokeTool, answered by the toolResponded event) runs in the native-mode browser, in the same tab as the native chain; the polyfill figures are divided by those CDP figures too.",
		"Round trip: the native chain's and CDP's calls alternate one by one; the polyfill chain runs alone in its own browser. Throughput: at each number of calls in flight, the chain and CDP each run half their calls, twice, alternating; calls/s is the calls over the wall time.",
		"Results over 256 KiB (--max-result) are spilled to a file by design: the agent gets its path; the suite reads the file and compares it byte for byte.",
		fmt.Sprintf("Memory: VmRSS of webmcp-host (found in /proc by its WEBMCP_RUNTIME_DIR) and of the agent's webmcp-shim: idle (tab open, tools listed, no call yet), warm (after the round trip and throughput calls), and after %d more calls, 16 in flight; flat means at most %d KiB more than warm. Open files from /proc/PID/fd.", *suiteMemCalls, flatKiB),
		fmt.Sprintf("The whole run took %s.", time.Since(began).Round(time.Second)),
	)
	if nat.ShimInit.N > 0 {
		b.ReportMetric(ms(nat.ShimInit.P50), "shim-init-p50-ms")
	}
	if nat.Chain.N > 0 && nat.CDP.N > 0 {
		b.ReportMetric(ms(nat.Chain.P50)/ms(nat.CDP.P50), "native/cdp-p50")
	}

	dir := *suiteOut
	if dir == "" {
		dir = filepath.Join(repoRoot, "bench")
	}
	md := rep.markdown()
	fmt.Printf("\n%s\n", md)
	if err := rep.write(dir); err != nil {
		b.Fatalf("write the results to %s: %v", dir, err)
	}
	fmt.Printf("results written to %s (results.md, results.json, latency.svg)\n", dir)
}

// suiteMode runs every phase of the suite in one WebMCP mode; failures of
// a phase go to fail, and the other phases still run.
func suiteMode(b *testing.B, m mode, f *modeFigures, fail func(string, error)) {
	br := start(b, m)
	tab := br.openDemo("localhost") // focused, tools listed
	br.waitTool("echo")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute) // a hang guard only
	defer cancel()
	phase := func(name string, run func() error) {
		if err := run(); err != nil {
			fail(string(m)+", "+name, err)
		}
	}

	var chainCalls atomic.Int64
	echo := func(ctx context.Context) error {
		chainCalls.Add(1)
		res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err != nil {
			return fmt.Errorf("echo through the chain: %w", err)
		}
		if res.IsError || text(res) != "x" {
			return fmt.Errorf("echo through the chain answered %.200q (error %v), want \"x\"", text(res), res.IsError)
		}
		return nil
	}

	var cdpt *cdpTools
	if m == native {
		var err error
		if cdpt, err = newCDPTools(tab); err != nil {
			fail("native, CDP", err)
		}
	}
	var cdpEcho func(context.Context) error
	if cdpt != nil {
		cdpEcho = func(ctx context.Context) error {
			_, err := cdpt.invoke(ctx, "echo", []byte(`{"text":"x"}`))
			return err
		}
	}

	// Memory and open files before any call.
	var hostPid, shimPid int
	if m == native {
		phase("memory, idle", func() error {
			var err error
			if hostPid, err = findHostPID(br); err != nil {
				return err
			}
			shimPid = br.shims[0].Process.Pid
			if f.HostIdle, err = readProc(hostPid); err != nil {
				return err
			}
			f.ShimIdle, err = readProc(shimPid)
			return err
		})
	}

	// Warm up every path.
	phase("warm-up", func() error {
		for range 50 {
			if err := echo(ctx); err != nil {
				return err
			}
			if cdpEcho != nil {
				if err := cdpEcho(ctx); err != nil {
					return err
				}
			}
		}
		return nil
	})

	phase("round trip", func() error {
		var chain, direct []time.Duration
		for range *suiteCalls {
			t0 := time.Now()
			if err := echo(ctx); err != nil {
				return err
			}
			chain = append(chain, time.Since(t0))
			if cdpEcho != nil {
				t0 = time.Now()
				if err := cdpEcho(ctx); err != nil {
					return err
				}
				direct = append(direct, time.Since(t0))
			}
		}
		f.Chain, f.CDP = summarize(chain), summarize(direct)
		fmt.Printf("%s round trip over %d calls: chain p50 %v p99 %v", m, len(chain), f.Chain.P50, f.Chain.P99)
		if cdpEcho != nil {
			fmt.Printf("; CDP p50 %v p99 %v", f.CDP.P50, f.CDP.P99)
		}
		fmt.Println()
		return nil
	})

	phase("executeTool in the page", func() error {
		var err error
		f.InPage, f.HasExecuteTool, err = inPageLoop(tab, *suiteCalls)
		return err
	})

	phase("throughput", func() error {
		for _, k := range levelsInFlight {
			var chain, direct []loadStats
			for range 2 { // halves, alternating, so that both see the same machine
				load(ctx, k, min(4*k, 50), echo) // warm up this level
				s, err := load(ctx, k, *suiteLoad/2, echo)
				if err != nil {
					return fmt.Errorf("%d in flight: %w", k, err)
				}
				chain = append(chain, s)
				if cdpEcho != nil {
					load(ctx, k, min(4*k, 50), cdpEcho)
					s, err := load(ctx, k, *suiteLoad/2, cdpEcho)
					if err != nil {
						return fmt.Errorf("CDP, %d in flight: %w", k, err)
					}
					direct = append(direct, s)
				}
			}
			f.Levels[k] = mergeLoad(chain)
			if cdpEcho != nil {
				f.CDPLevels[k] = mergeLoad(direct)
			}
			fmt.Printf("%s, %d in flight: chain %.0f calls/s (p50 %v)", m, k, f.Levels[k].PerSec, f.Levels[k].P50)
			if cdpEcho != nil {
				fmt.Printf("; CDP %.0f calls/s (p50 %v)", f.CDPLevels[k].PerSec, f.CDPLevels[k].P50)
			}
			fmt.Println()
		}
		return nil
	})

	if m == native && hostPid > 0 {
		phase("memory, after calls", func() error {
			// Warm: after the calls so far; then the calls asked for, 16 in flight.
			f.CallsWarm = int(chainCalls.Load())
			var err error
			if f.HostWarm, err = readProc(hostPid); err != nil {
				return err
			}
			if f.ShimWarm, err = readProc(shimPid); err != nil {
				return err
			}
			if _, err := load(ctx, 16, *suiteMemCalls, echo); err != nil {
				return err
			}
			f.CallsMore = int(chainCalls.Load()) - f.CallsWarm
			if f.HostAfter, err = readProc(hostPid); err != nil {
				return err
			}
			f.ShimAfter, err = readProc(shimPid)
			return err
		})
	}

	phase("registerTool → tools/list_changed", func() error {
		var err error
		f.ListChanged, err = timeListChanged(ctx, br, tab, *suiteEvents)
		return err
	})
	phase("click → resources/updated", func() error {
		var err error
		f.Updated, err = timeClicks(ctx, br, tab, *suiteEvents)
		return err
	})
	if m == native {
		phase("shim start", func() error {
			var err error
			f.ShimInit, f.ShimTools, err = timeShimStarts(ctx, br, *suiteEvents)
			return err
		})
		if *suiteSizes {
			phase("sizes", func() error {
				var err error
				f.Sizes, err = timeSizes(ctx, br, tab, cdpt)
				return err
			})
			if hostPid > 0 {
				phase("memory, after the big messages", func() error {
					var err error
					if f.HostBig, err = readProc(hostPid); err != nil {
						return err
					}
					f.ShimBig, err = readProc(shimPid)
					return err
				})
			}
		}
	}
	f.Done = true
}

// load makes n calls, k at a time, and returns the calls per second and
// their latencies; it stops at the first error.
func load(ctx context.Context, k, n int, call func(context.Context) error) (loadStats, error) {
	var (
		next  atomic.Int64
		lats  = make([]time.Duration, n)
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	begin := time.Now()
	for range k {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				t0 := time.Now()
				err := call(ctx)
				lats[i] = time.Since(t0)
				if err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if first != nil {
		return loadStats{}, first
	}
	p50, p99 := percentiles(lats)
	return loadStats{Calls: n, Elapsed: elapsed, PerSec: float64(n) / elapsed.Seconds(), P50: p50, P99: p99}, nil
}

// mergeLoad adds up runs of the same path and level: calls over the sum of
// their times; the percentiles are the median run's (a run holds n/2 calls).
func mergeLoad(runs []loadStats) loadStats {
	var out loadStats
	for _, r := range runs {
		out.Calls += r.Calls
		out.Elapsed += r.Elapsed
	}
	if out.Elapsed > 0 {
		out.PerSec = float64(out.Calls) / out.Elapsed.Seconds()
	}
	p50s, p99s := make([]time.Duration, len(runs)), make([]time.Duration, len(runs))
	for i, r := range runs {
		p50s[i], p99s[i] = r.P50, r.P99
	}
	if len(runs) > 0 {
		// Two runs: their mean; more: their median.
		slices.Sort(p50s)
		slices.Sort(p99s)
		if len(runs) == 2 {
			out.P50, out.P99 = (p50s[0]+p50s[1])/2, (p99s[0]+p99s[1])/2
		} else {
			out.P50, out.P99 = p50s[len(runs)/2], p99s[len(runs)/2]
		}
	}
	return out
}

// cdpTools calls page tools as chrome-devtools-mcp does: WebMCP.invokeTool,
// then the toolResponded event with the same invocation id.
type cdpTools struct {
	tab   context.Context
	frame cdp.FrameID
	mu    sync.Mutex
	wait  map[string]chan *cdpwebmcp.EventToolResponded
	early map[string]*cdpwebmcp.EventToolResponded // answers that came before their caller asked
}

func newCDPTools(tab context.Context) (*cdpTools, error) {
	ft, err := chromedp.Call(tab, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("the tab's frame tree: %w", err)
	}
	c := &cdpTools{tab: tab, frame: ft.FrameTree.Frame.ID,
		wait: map[string]chan *cdpwebmcp.EventToolResponded{}, early: map[string]*cdpwebmcp.EventToolResponded{}}
	err = chromedp.Listen(tab, func(ev any) {
		e, ok := ev.(*cdpwebmcp.EventToolResponded)
		if !ok {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if ch, ok := c.wait[e.InvocationID]; ok {
			delete(c.wait, e.InvocationID)
			ch <- e // room for one
			return
		}
		c.early[e.InvocationID] = e
	})
	if err != nil {
		return nil, fmt.Errorf("listen to the tab's events: %w", err)
	}
	if _, err := chromedp.Call(tab, cdpwebmcp.Enable, cdp.Empty{}); err != nil {
		return nil, fmt.Errorf("WebMCP.enable (is the browser's WebMCP on?): %w", err)
	}
	return c, nil
}

// invoke calls the tool and returns its answer; an answer other than
// Completed is an error.
func (c *cdpTools) invoke(ctx context.Context, name string, in []byte) (*cdpwebmcp.EventToolResponded, error) {
	cctx, cancel := context.WithCancel(c.tab)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := chromedp.Call(cctx, cdpwebmcp.InvokeTool, cdpwebmcp.InvokeToolParams{FrameID: c.frame, ToolName: name, Input: in})
	if err != nil {
		return nil, fmt.Errorf("CDP WebMCP.invokeTool %s: %w", name, err)
	}
	c.mu.Lock()
	e, ok := c.early[res.InvocationID]
	var ch chan *cdpwebmcp.EventToolResponded
	if ok {
		delete(c.early, res.InvocationID)
	} else {
		ch = make(chan *cdpwebmcp.EventToolResponded, 1)
		c.wait[res.InvocationID] = ch
	}
	c.mu.Unlock()
	if !ok {
		select {
		case e = <-ch:
		case <-ctx.Done():
			c.mu.Lock()
			delete(c.wait, res.InvocationID)
			c.mu.Unlock()
			return nil, fmt.Errorf("CDP WebMCP.invokeTool %s: no toolResponded event: %w", name, ctx.Err())
		}
	}
	if e.Status != cdpwebmcp.InvocationStatusCompleted {
		return nil, fmt.Errorf("CDP WebMCP.invokeTool %s: %s %s", name, e.Status, e.ErrorText)
	}
	return e, nil
}

// inPageLoop times document.modelContext.executeTool of the echo tool in a
// loop in the page, with performance.now().
func inPageLoop(tab context.Context, n int) (latStats, bool, error) {
	type out struct {
		Has   bool      `json:"has"`
		Times []float64 `json:"times"`
		Total float64   `json:"total"`
	}
	o, err := chromedp.Run(tab, chromedp.Evaluate[out](fmt.Sprintf(`(async (n) => {
		const mc = document.modelContext;
		if (!mc || typeof mc.executeTool !== 'function') return {has: false, times: [], total: 0};
		const tool = (await mc.getTools()).find((t) => t.name === 'echo');
		if (!tool) throw new Error('getTools() lists no echo tool');
		for (let i = 0; i < 50; i++) await mc.executeTool(tool, {text: 'x'});
		const times = new Array(n);
		const begin = performance.now();
		for (let i = 0; i < n; i++) {
			const t0 = performance.now();
			const r = await mc.executeTool(tool, {text: 'x'});
			times[i] = performance.now() - t0;
			if (r !== 'x' && r !== '"x"') throw new Error('executeTool of echo resolved to ' + JSON.stringify(r));
		}
		return {has: true, times, total: performance.now() - begin};
	})(%d)`, n), chromedp.EvalAwaitPromise))
	if err != nil {
		return latStats{}, false, fmt.Errorf("the page's loop: %w", err)
	}
	if !o.Has {
		return latStats{}, false, errors.New("document.modelContext.executeTool is missing in this page")
	}
	d := make([]time.Duration, len(o.Times))
	for i, t := range o.Times {
		d[i] = time.Duration(t * float64(time.Millisecond))
	}
	s := summarize(d)
	s.Mean = time.Duration(o.Total / float64(n) * float64(time.Millisecond))
	return s, true, nil
}

// timeListChanged registers n tools, one at a time, and times each from
// the Runtime.evaluate that registers it to the client's
// tools/list_changed after which the tool is listed.
func timeListChanged(ctx context.Context, br *bridge, tab context.Context, n int) (latStats, error) {
	var d []time.Duration
	for i := range n {
		name := fmt.Sprintf("bench_added_%d_%d", time.Now().UnixNano(), i)
		drain(br.changed)
		errc := make(chan error, 1)
		t0 := time.Now()
		go func() {
			_, err := chromedp.Run(tab, chromedp.Evaluate[any](`document.modelContext.registerTool({
				name: `+strconv.Quote(name)+`, description: 'Added by the benchmark.',
				inputSchema: {type: 'object', properties: {}}, execute: () => 'ok',
			})`, chromedp.EvalAwaitPromise))
			errc <- err
		}()
		got, err := waitListed(ctx, br, name, t0, errc)
		if err != nil {
			return latStats{}, err
		}
		d = append(d, got)
	}
	return summarize(d), nil
}

// waitListed waits for tools/list_changed notifications until name is
// listed, and returns the time from t0 to that notification; errc has the
// error of what registers the tool.
func waitListed(ctx context.Context, br *bridge, name string, t0 time.Time, errc chan error) (time.Duration, error) {
	return waitNotice(ctx, br.changed, t0, errc, "register "+name, "tools/list_changed listing "+name,
		func(ctx context.Context, _ struct{}) (bool, error) {
			res, err := br.client.ListTools(ctx, nil)
			if err != nil {
				return false, fmt.Errorf("list tools: %w", err)
			}
			return slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name }), nil
		})
}

// waitNotice waits for notices on c until done says that the change they
// announce has arrived, and returns the time from t0 to that notice. errc
// has the error of what makes the change (act names it); the change counts
// only once that has returned without one.
func waitNotice[T any](ctx context.Context, c <-chan T, t0 time.Time, errc chan error, act, notice string, done func(context.Context, T) (bool, error)) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a hang guard only
	defer cancel()
	for {
		select {
		case err := <-errc:
			if err != nil {
				return 0, fmt.Errorf("%s: %w", act, err)
			}
			errc = nil
		case n := <-c:
			got := time.Since(t0)
			ok, err := done(ctx, n)
			if err != nil {
				return 0, err
			}
			if !ok {
				continue
			}
			if errc != nil {
				if err := <-errc; err != nil {
					return 0, fmt.Errorf("%s: %w", act, err)
				}
			}
			return got, nil
		case <-ctx.Done():
			return 0, fmt.Errorf("no %s: %w", notice, ctx.Err())
		}
	}
}

func drain[T any](c chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// timeClicks clicks two slices of the demo in turn, n times, as a user
// would (mouse events), and times each from the mouse release to the
// resources/updated of the UI context after which the context names the
// clicked slice.
func timeClicks(ctx context.Context, br *bridge, tab context.Context, n int) (latStats, error) {
	focus(br.t, tab)
	if err := br.client.Subscribe(ctx, &mcp.SubscribeParams{URI: contextURI}); err != nil {
		return latStats{}, fmt.Errorf("subscribe to %s: %w", contextURI, err)
	}
	ids := []string{"3", "5"}
	type point struct{ X, Y float64 }
	at := map[string]point{}
	for _, id := range ids {
		p, err := chromedp.Run(tab, chromedp.Evaluate[point](`(() => {
			const el = document.querySelector('.slice[data-id="`+id+`"]');
			el.scrollIntoView({block: 'center'});
			const r = el.getBoundingClientRect();
			return {X: r.x + r.width / 2, Y: r.y + r.height / 2};
		})()`))
		if err != nil {
			return latStats{}, fmt.Errorf("find slice %s: %w", id, err)
		}
		at[id] = p
	}
	mouse := func(typ input.DispatchMouseEventType, p point) error {
		_, err := chromedp.Call(tab, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: p.X, Y: p.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1})
		return err
	}
	var d []time.Duration
	for i := range n + 1 { // the first click selects a slice that may already be selected: not timed
		id := ids[i%2]
		if err := mouse(input.DispatchMouseEventTypeMousePressed, at[id]); err != nil {
			return latStats{}, fmt.Errorf("press the mouse on slice %s: %w", id, err)
		}
		drain(br.updated)
		errc := make(chan error, 1)
		t0 := time.Now()
		go func() { errc <- mouse(input.DispatchMouseEventTypeMouseReleased, at[id]) }()
		got, err := waitUpdated(ctx, br, id, t0, errc)
		if err != nil {
			return latStats{}, err
		}
		if i > 0 {
			d = append(d, got)
		}
	}
	return summarize(d), nil
}

// waitUpdated waits for resources/updated of the UI context until it names
// slice id, and returns the time from t0 to that notification.
func waitUpdated(ctx context.Context, br *bridge, id string, t0 time.Time, errc chan error) (time.Duration, error) {
	return waitNotice(ctx, br.updated, t0, errc, "release the mouse on slice "+id, "resources/updated naming slice "+id+" after the click",
		func(ctx context.Context, uri string) (bool, error) {
			if uri != contextURI {
				return false, nil
			}
			res, err := br.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: contextURI})
			if err != nil {
				return false, fmt.Errorf("read %s: %w", contextURI, err)
			}
			var c uiContext
			return len(res.Contents) > 0 && json.Unmarshal([]byte(res.Contents[0].Text), &c) == nil && selected(&c) == id, nil
		})
}

// selected is the id of the slice the demo's selection provider names.
func selected(c *uiContext) string {
	_, data, ok := c.provider(selectionProvider)
	if !ok {
		return ""
	}
	var d struct {
		ID json.Number `json:"id"`
	}
	json.Unmarshal([]byte(data), &d)
	return d.ID.String()
}

// timeShimStarts starts n more shims against the running browser, as an
// agent would, and times each start until initialize is answered and until
// the page's echo tool is listed.
func timeShimStarts(ctx context.Context, br *bridge, n int) (initd, listed latStats, err error) {
	var di, dl []time.Duration
	for range n {
		changed := make(chan struct{}, 1)
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				select {
				case changed <- struct{}{}:
				default:
				}
			},
		})
		cmd := exec.Command(filepath.Join(installDir, "bin", "webmcp-shim"))
		cmd.Env = append(os.Environ(), "WEBMCP_RUNTIME_DIR="+br.runtimeDir, "XDG_CACHE_HOME="+filepath.Join(filepath.Dir(br.runtimeDir), "cache"))
		cmd.Stderr = br.logs.prefixed("shim (start timed): ")
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a hang guard only
		t0 := time.Now()
		cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			cancel()
			return latStats{}, latStats{}, fmt.Errorf("start webmcp-shim: %w", err)
		}
		di = append(di, time.Since(t0))
		for {
			res, err := cs.ListTools(cctx, nil)
			if err != nil {
				cs.Close()
				cancel()
				return latStats{}, latStats{}, fmt.Errorf("list tools of a new shim: %w", err)
			}
			if slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "echo" }) {
				dl = append(dl, time.Since(t0))
				break
			}
			select {
			case <-changed:
			case <-cctx.Done():
				cs.Close()
				cancel()
				return latStats{}, latStats{}, errors.New("a new shim never listed the page's echo tool")
			}
		}
		cs.Close()
		cancel()
	}
	return summarize(di), summarize(dl), nil
}

// timeSizes times 1 and 16 MiB arguments and 1 and 64 MiB results through
// the chain (and through CDP when cdpt is not nil), and checks that each
// arrived intact: arguments by their length and a checksum the page
// computes, results (spilled to a file, by design) byte for byte.
func timeSizes(ctx context.Context, br *bridge, tab context.Context, cdpt *cdpTools) ([]sizeFigure, error) {
	eval[any](br.t, tab, `(async () => {
		await document.modelContext.registerTool({
			name: 'bench_size_of', description: 'Measures its argument.',
			inputSchema: {type: 'object', properties: {text: {type: 'string'}}},
			execute: ({text}) => {
				let sum = 0;
				for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) >>> 0;
				return {length: text.length, sum};
			},
		});
		await document.modelContext.registerTool({
			name: 'bench_make_flat', description: 'Returns n characters, no escapes.', annotations: {readOnlyHint: true},
			inputSchema: {type: 'object', properties: {n: {type: 'integer'}}},
			execute: ({n}) => 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(n / 36)).slice(0, n),
		});
	})()`)
	br.waitTools("bench_size_of and bench_make_flat", func(m map[string]*mcp.Tool) bool {
		return m["bench_size_of"] != nil && m["bench_make_flat"] != nil
	})
	var out []sizeFigure

	type sized struct {
		Length int    `json:"length"`
		Sum    uint32 `json:"sum"`
	}
	for _, n := range []int{1 << 20, 16 << 20} {
		s := strings.Repeat("0123456789abcdef", n/16)
		var sum uint32
		for i := 0; i < len(s); i++ {
			sum = sum*31 + uint32(s[i])
		}
		fig := sizeFigure{What: "argument", Label: sizeName(n), Bytes: n, Intact: true}
		reps := repsFor(n)
		var times []time.Duration
		for range reps {
			t0 := time.Now()
			res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "bench_size_of", Arguments: map[string]any{"text": s}})
			d := time.Since(t0)
			if err != nil {
				return out, fmt.Errorf("an argument of %s: %w", sizeName(n), err)
			}
			var got sized
			if jerr := json.Unmarshal([]byte(firstText(res)), &got); res.IsError || jerr != nil || got.Length != n || got.Sum != sum {
				fig.Intact = false
				fig.Note = fmt.Sprintf("the page saw %.200s, want length %d and sum %d", firstText(res), n, sum)
			}
			times = append(times, d)
		}
		fig.Time = median(times)
		if fig.Intact {
			fig.Note = fmt.Sprintf("length and checksum checked in the page; median of %d", reps)
		}
		if cdpt != nil {
			in, _ := json.Marshal(map[string]string{"text": s})
			var ct []time.Duration
			for range reps {
				t0 := time.Now()
				e, err := cdpt.invoke(ctx, "bench_size_of", in)
				d := time.Since(t0)
				if err != nil {
					fig.Note += "; CDP: " + err.Error()
					ct = nil
					break
				}
				var got sized
				if !decodeOutput(e.Output, &got) || got.Length != n || got.Sum != sum {
					fig.Note += fmt.Sprintf("; CDP's answer was not intact: %.200s", e.Output)
					ct = nil
					break
				}
				ct = append(ct, d)
			}
			if len(ct) > 0 {
				fig.CDP = median(ct)
			}
		}
		out = append(out, fig)
	}

	for _, n := range []int{1 << 20, protocol.MaxResult - 2} { // 64 MiB of JSON: the largest result
		want := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", n/36+1)[:n])
		fig := sizeFigure{What: "result", Label: sizeName(n), Bytes: n, Intact: true}
		if n == protocol.MaxResult-2 {
			fig.Label = fmt.Sprintf("64 MiB (%d characters: 64 MiB of JSON, the largest)", n)
		}
		reps := repsFor(n)
		var times []time.Duration
		for range reps {
			t0 := time.Now()
			res, err := br.client.CallTool(ctx, &mcp.CallToolParams{Name: "bench_make_flat", Arguments: map[string]any{"n": n}})
			d := time.Since(t0)
			if err != nil {
				return out, fmt.Errorf("a result of %s: %w", sizeName(n), err)
			}
			times = append(times, d)
			path, _ := res.Meta["dev.webmcp/resultFile"].(string)
			switch {
			case res.IsError:
				fig.Intact = false
				fig.Note = fmt.Sprintf("an error: %.300s", firstText(res))
			case path == "":
				if firstText(res) != string(want) {
					fig.Intact = false
					fig.Note = fmt.Sprintf("not spilled to a file, and the text (%d bytes) differs", len(firstText(res)))
				}
			default:
				body, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(body, want) {
					fig.Intact = false
					fig.Note = fmt.Sprintf("the result's file holds %d bytes (%v), want the %d of the result", len(body), err, n)
				}
				os.Remove(path)
				if fig.Intact {
					fig.Note = fmt.Sprintf("spilled to a file by design (over 256 KiB); the file's %d bytes checked; median of %d", n, reps)
				}
			}
		}
		fig.Time = median(times)
		if cdpt != nil {
			in, _ := json.Marshal(map[string]int{"n": n})
			var ct []time.Duration
			for range reps {
				t0 := time.Now()
				e, err := cdpt.invoke(ctx, "bench_make_flat", in)
				d := time.Since(t0)
				if err != nil {
					fig.Note += "; CDP: " + err.Error()
					ct = nil
					break
				}
				var got string
				if !decodeOutput(e.Output, &got) || got != string(want) {
					fig.Note += fmt.Sprintf("; CDP's answer was not intact (%d bytes)", len(e.Output))
					ct = nil
					break
				}
				ct = append(ct, d)
			}
			if len(ct) > 0 {
				fig.CDP = median(ct)
			}
		}
		out = append(out, fig)
	}
	return out, nil
}

// repsFor is how many calls time a size: five of 1 MiB, one of more.
func repsFor(n int) int {
	if n <= 1<<20 {
		return 5
	}
	return 1
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// decodeOutput decodes CDP's output of a tool into v: the JSON of the
// value, or a JSON string holding that JSON (executeTool's result string).
func decodeOutput(raw []byte, v any) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if json.Unmarshal([]byte(s), v) == nil {
			return true
		}
		if sp, ok := v.(*string); ok { // a string result given as itself
			*sp = s
			return true
		}
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// findHostPID finds the webmcp-host of this bridge's browser: on Linux the
// process in /proc named webmcp-host whose environment has this browser's
// WEBMCP_RUNTIME_DIR; elsewhere the pid list_tabs names.
func findHostPID(br *bridge) (int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		if pid := hostPID(br.t, br); pid > 0 {
			return pid, nil
		}
		return 0, errors.New("list_tabs names no webmcp-host")
	}
	want := "WEBMCP_RUNTIME_DIR=" + br.runtimeDir
	var found []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "webmcp-host" {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if slices.Contains(strings.Split(string(env), "\x00"), want) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("found %d webmcp-host processes with %s in /proc (%v), want one", len(found), want, found)
	}
	if named := hostPID(br.t, br); named != found[0] {
		return 0, fmt.Errorf("/proc has webmcp-host %d for this browser, but list_tabs names %d", found[0], named)
	}
	return found[0], nil
}

// readProc reads a process's resident memory, its peak, and its open
// files: from /proc on Linux, else RSS alone from ps.
func readProc(pid int) (procStats, error) {
	st := procStats{FDs: -1}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		out, perr := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
		if perr != nil {
			return st, fmt.Errorf("the memory of process %d: %v; ps: %v", pid, err, perr)
		}
		st.RSSKiB, err = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		return st, err
	}
	for line := range strings.Lines(string(status)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			st.RSSKiB, _ = strconv.ParseInt(f[1], 10, 64)
		case "VmHWM:":
			st.HWMKiB, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		st.FDs = len(fds)
	}
	if st.RSSKiB == 0 {
		return st, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return st, nil
}
