package host

import (
	"time"

	"github.com/webmcp-bridge/bridge/protocol"
)

// Calls go to the browser in batches: each message that crosses the
// browser costs its process, the service worker and the page a task, and
// under load these costs, not the hops' latency, bound the calls per
// second. A session's reader holds the messages of the lines that came in
// together and sends them as one batch (toBrowserMany). Under load it holds
// them a moment more, for the shim's next calls to join: an agent's calls
// in flight come back together and go out again spread by the shim's and
// the agent's own work, so without a hold most would go alone. A call with
// fewer than HoldUnderLoad others under way never waits. Measured with
// ./bench.sh -bench '^BenchmarkFloor$' (16 calls in flight, the demo's echo
// through real Chromium), the hold and the page's own (the answers of one
// batch go back in one) raised the calls per second by a third and cut the
// CPU time per call by a third; WEBMCP_HOLD=0 turns the host's off.

// queueOut holds a message for the browser until the session's reader has
// handled every line that came in with it, or longer under load
// (sendOrHold); call is its call id, or "" for a cancel. Only the session's
// reader calls it.
func (s *session) queueOut(call string, msg []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	s.out = append(s.out, msg)
	s.outCalls = append(s.outCalls, call)
	s.outBytes += len(msg)
}

// outFull says whether what is held must go now: a frame's worth of
// bytes, or, in a hold, HoldMax messages (lines that came in together are
// not cut at HoldMax: with 64 calls in flight, they are more).
func (s *session) outFull() bool {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return s.outBytes >= protocol.MaxHostFrame || s.holding && len(s.out) >= HoldMax
}

// sendOrHold sends what the session's reader holds for the browser, or,
// under load, holds it up to the host's hold for the shim's next calls to
// join it: when the browser takes batches and HoldUnderLoad or more other
// calls are under way there (their answers will come back together, and
// the agent's next calls with them). A hold already running goes on: its
// timer, or a full batch (outFull), sends.
func (s *session) sendOrHold() {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if len(s.out) == 0 || s.holding {
		return
	}
	h := s.h
	if h.hold > 0 && h.batchOK.Load() && len(s.out) < HoldMax {
		h.mu.Lock()
		others := len(h.pending) - len(s.out)
		h.mu.Unlock()
		if others >= HoldUnderLoad {
			s.holding = true
			if s.holdTimer == nil {
				s.holdTimer = time.AfterFunc(h.hold, s.flushOut)
			} else {
				s.holdTimer.Reset(h.hold)
			}
			return
		}
	}
	s.sendHeld()
}

// flushOut sends what the session holds for the browser now, ending a
// hold.
func (s *session) flushOut() {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	s.sendHeld()
}

// sendHeld sends the held messages: several as one batch (toBrowserMany).
// A call that could not go is answered no_browser at once. The caller
// holds outMu.
func (s *session) sendHeld() {
	if s.holding {
		s.holding = false
		s.holdTimer.Stop()
	}
	if len(s.out) == 0 {
		return
	}
	h := s.h
	n, err := h.toBrowserMany(s.out)
	if err != nil {
		for _, id := range s.outCalls[n:] {
			if id != "" && h.takePending(id) == s {
				s.send(errorLine(id, protocol.Errorf(protocol.CodeNoBrowser, "webmcp-host could not pass the call to the browser (%v): reopen the browser with the WebMCP bridge extension and call again", err)))
			}
		}
	}
	clear(s.out)
	s.out, s.outCalls, s.outBytes = s.out[:0], s.outCalls[:0], 0
}
