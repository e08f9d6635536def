package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHostRestart kills webmcp-host (SIGKILL) once per iteration while
// four agents' worth of callers keep calling the demo's echo tool through
// one shim, and reports what that costs: calls that never came back (lost),
// answers meant for another call (wrong), and how long it took until a call
// went through again (recovery). Every call must end, with its own answer
// or an error: lost and wrong must stay 0.
//
//	go test ./e2e -run '^$' -bench HostRestart -benchtime 20x
func BenchmarkHostRestart(b *testing.B) {
	br := start(b, native)
	tab, _ := br.open(demoURL("localhost", "/"))
	eval[any](b, tab, `window.demo.ready`)
	br.waitTool("echo")

	var (
		ok, failed, lost, wrong atomic.Int64
		lastOK                  atomic.Int64 // unix nanos of the latest good answer
		stop                    = make(chan struct{})
	)
	wait := callEchoes(br.client, 4, stop, func(want string, res *mcp.CallToolResult, err error, timedOut bool) {
		switch {
		case err != nil && timedOut:
			lost.Add(1)
		case err != nil || res.IsError:
			failed.Add(1)
		case !strings.Contains(text(res), want) || strings.Count(text(res), "call-") != 1:
			wrong.Add(1)
		default:
			ok.Add(1)
			lastOK.Store(time.Now().UnixNano())
		}
	})

	var recoveries []time.Duration
	for b.Loop() {
		pid := hostPID(b, br)
		if pid <= 0 { // never kill(0): that is this process group
			b.Fatalf("list_tabs names no host to kill")
		}
		killed := time.Now()
		if err := killPID(pid); err != nil {
			b.Fatalf("kill host %d: %v", pid, err)
		}
		// Recovered: a good answer after the kill, from a new host.
		deadline := time.After(60 * time.Second) // a hang guard only
		for lastOK.Load() < killed.UnixNano() || hostPID(b, br) == pid {
			select {
			case <-deadline:
				b.Fatalf("no call went through within a minute of killing host %d", pid)
			case <-time.After(20 * time.Millisecond):
			}
		}
		recoveries = append(recoveries, time.Duration(lastOK.Load()-killed.UnixNano()))
		// Steady again: 100 more good answers before the next kill.
		for target := ok.Load() + 100; ok.Load() < target; {
			select {
			case <-deadline:
				b.Fatalf("calls did not go on after host %d was replaced", pid)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	close(stop)
	wait()

	slices.Sort(recoveries)
	var sum time.Duration
	for _, r := range recoveries {
		sum += r
	}
	mean := sum / time.Duration(max(len(recoveries), 1))
	worst := recoveries[len(recoveries)-1]
	b.ReportMetric(float64(mean.Milliseconds()), "recovery-mean-ms")
	b.ReportMetric(float64(worst.Milliseconds()), "recovery-max-ms")
	b.ReportMetric(float64(lost.Load()), "lost")
	b.ReportMetric(float64(wrong.Load()), "wrong")
	fmt.Printf("host restarts: %d kills; calls ok %d, failed (said so) %d, lost %d, wrong %d; recovery mean %v, worst %v\n",
		len(recoveries), ok.Load(), failed.Load(), lost.Load(), wrong.Load(), mean, worst)
	if lost.Load() > 0 || wrong.Load() > 0 {
		b.Errorf("%d calls lost and %d answered wrongly across host restarts", lost.Load(), wrong.Load())
	}
}

// hostPID is the pid of the host that list_tabs names (0 while none).
func hostPID(tb testing.TB, br *bridge) int {
	res, err := br.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_tabs", Arguments: map[string]any{}})
	if err != nil {
		tb.Fatalf("list_tabs: %v", err)
	}
	var out struct {
		Tabs []struct {
			HostPID int `json:"hostPid"`
		} `json:"tabs"`
	}
	json.Unmarshal([]byte(text(res)), &out)
	for _, t := range out.Tabs {
		if t.HostPID > 0 {
			return t.HostPID
		}
	}
	return 0
}

// killPID ends the process pid at once, as a crash does.
func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// callEchoes starts n callers that call the demo's echo tool through cs,
// each call with a text of its own ("call-N", the want of each), until
// stop is closed; each answer goes to each, from the callers' goroutines.
// A call that has no answer within 30 s ends (timedOut): a call that never
// ends is a failure to count, not a hang. It returns a function that waits
// for the callers to end.
func callEchoes(cs *mcp.ClientSession, n int, stop <-chan struct{}, each func(want string, res *mcp.CallToolResult, err error, timedOut bool)) (wait func()) {
	var (
		seq atomic.Int64
		wg  sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				want := "call-" + strconv.FormatInt(seq.Add(1), 10)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": want}})
				timedOut := ctx.Err() != nil
				cancel()
				each(want, res, err, timedOut)
			}
		})
	}
	return wg.Wait
}
