package e2e

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRestartsUnnoticed: the browser's host is killed, and the extension's
// service worker stopped, again and again while four callers keep calling a
// page tool through one shim. The agent never notices: its tool list does
// not change, no call ends as "unknown tool", and the only failures are
// calls that were under way at a kill (the page may have run them).
func TestRestartsUnnoticed(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(demoURL("localhost", "/"))
		eval[any](t, tab, `window.demo.ready`)
		b.waitTool("echo")
		// The agent's shim, verbose: it logs each change of the agent's
		// tool list as it makes it.
		agent := b.connectShim("--verbose")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard only
		defer cancel()

		var (
			ok, inFlight, protocol, other atomic.Int64
			problems                      sync.Map
			okc                           = make(chan struct{}, 1)
			stop                          = make(chan struct{})
		)
		wait := callEchoes(agent, 4, stop, func(want string, res *mcp.CallToolResult, err error, _ bool) {
			switch {
			case err != nil:
				protocol.Add(1)
				problems.Store(err.Error(), true)
			case res.IsError && (strings.HasPrefix(text(res), "browser disconnected: ") || strings.Contains(text(res), "The page may have run this call")):
				inFlight.Add(1) // under way at a kill or as the worker stopped: "pageRan": "maybe"
			case res.IsError || !strings.Contains(text(res), want):
				other.Add(1)
				problems.Store(text(res), true)
			default:
				ok.Add(1)
				select {
				case okc <- struct{}{}:
				default:
				}
			}
		})
		// Calls go through again: n good answers after now.
		recovered := func(what string) {
			t.Helper()
			for target := ok.Load() + 20; ok.Load() < target; {
				select {
				case <-okc:
				case <-ctx.Done():
					t.Fatalf("no calls went through after %s", what)
				}
			}
		}
		recovered("the start")
		kills := 0
		for i := range 6 {
			if i == 3 {
				// The service worker stops (Chrome stops idle workers, an
				// update reloads it): its native port closes, the host
				// exits, and the worker comes back with a new one.
				stopWorker(t, b)
				recovered("the service worker stopped")
				continue
			}
			pid := hostPID(t, b)
			if pid <= 0 { // never kill(0): that is this process group
				t.Fatalf("list_tabs names no host to kill")
			}
			if err := killPID(pid); err != nil {
				t.Fatalf("kill host %d: %v", pid, err)
			}
			kills++
			recovered("host " + strconv.Itoa(pid) + " was killed")
		}
		close(stop)
		wait()

		t.Logf("%d calls went through, %d were under way at a kill; %d protocol errors, %d other failures", ok.Load(), inFlight.Load(), protocol.Load(), other.Load())
		problems.Range(func(k, _ any) bool {
			t.Errorf("a call failed: %v", k)
			return true
		})
		if n := inFlight.Load(); n > int64(4*(kills+1)) {
			t.Errorf("%d calls failed as under way at a kill; at most 4 per kill can be", n)
		}
		// The agent's shim logged no change of its tool list after the
		// first kill: no tools/list_changed for restarts that came back.
		logs := b.logs.String()
		if i := strings.Index(logs, "disconnected from host"); i < 0 {
			t.Errorf("the agent's shim never saw its host go")
		} else if strings.Contains(logs[i:], "tool list changed") {
			t.Errorf("the agent's tool list changed during the restarts")
		}
	})
}

// stopWorker stops the extension's service worker, as Chrome does with an
// idle one, and waits until it runs again.
func stopWorker(t *testing.T, b *bridge) {
	t.Helper()
	targets, err := chromedp.Targets(b.browser)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "service_worker" && strings.HasPrefix(tg.URL, "chrome-extension://") {
			worker, _ := chromedp.NewContext(b.browser, chromedp.WithTargetID(tg.TargetID))
			if err := chromedp.Do(worker); err != nil {
				t.Fatalf("attach to the service worker: %v", err)
			}
			if err := chromedp.Cancel(worker); err != nil { // closes the target: the worker stops
				t.Fatalf("stop the service worker: %v", err)
			}
			return
		}
	}
	t.Fatalf("no service worker of the extension among %d targets", len(targets))
}
