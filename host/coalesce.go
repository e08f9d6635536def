package host

import (
	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Calls go to the browser in batches: each message that crosses the
// browser costs its process, the service worker and the page a task, and
// under load these costs, not the hops' latency, bound the calls per
// second. A session's reader holds the messages of the lines that came in
// together in its queue (browserlink.Queue) and sends them as one batch.
// Under load it holds them a moment more, for the shim's next calls to
// join: an agent's calls in flight come back together and go out again
// spread by the shim's and the agent's own work, so without a hold most
// would go alone. A call with fewer than HoldUnderLoad others under way
// never waits. Measured with ./bench.sh -bench '^BenchmarkFloor$' (16
// calls in flight, the demo's echo through real Chromium), the hold and
// the page's own (the answers of one batch go back in one) raised the
// calls per second by a third and cut the CPU time per call by a third;
// WEBMCP_HOLD=0 turns the host's off.

// underLoad says whether held calls (held of them, already under way in
// h.pending) are to wait for more: HoldUnderLoad or more other calls are
// under way in the browser (their answers will come back together, and the
// agent's next calls with them). The queue's lock is held.
func (h *host) underLoad(held int) bool {
	h.mu.Lock()
	others := len(h.pending) - held
	h.mu.Unlock()
	return others >= HoldUnderLoad
}

// newOut returns the queue of a session's messages for the browser. A call
// that could not go is answered no_browser at once.
func (h *host) newOut(s *session) *browserlink.Queue {
	return h.browserLink.NewQueue(func(calls []string, err error) {
		for _, id := range calls {
			if id != "" && h.takePending(id) == s {
				s.send(errorLine(id, protocol.Errorf(protocol.CodeNoBrowser, "webmcp-host could not pass the call to the browser (%v): reopen the browser with the WebMCP bridge extension and call again", err)))
			}
		}
	})
}
