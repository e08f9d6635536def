package host

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/protocol"
)

// Calls are routed by their ids: a shim prefixes every call id with its
// session id and a dot ("s3.17"); the host remembers which shim each call
// under way belongs to, passes calls and cancels to the browser unchanged,
// and passes each answer back to the shim that asked, also unchanged.

// owns reports whether the call id carries s's session prefix.
func (s *session) owns(id string) bool {
	return len(id) > len(s.id)+1 && strings.HasPrefix(id, s.id) && id[len(s.id)] == '.'
}

// forwardCall sends a shim's call to the browser, or answers it at once
// when it cannot go.
func (h *host) forwardCall(s *session, id string, msg []byte) {
	if !s.owns(id) {
		h.log.Printf("shim %s sent a call with id %q, which lacks its prefix %q; answered bad_request", s.id, id, s.id+".")
		s.send(errorLine(id, protocol.Errorf(protocol.CodeBadRequest,
			"call id %q does not start with this connection's session prefix %q: prefix every call id with the session id from the host's hello", id, s.id+".")))
		return
	}
	h.mu.Lock()
	switch {
	case h.gone:
		h.mu.Unlock()
		s.send(errorLine(id, protocol.Errorf(protocol.CodeNoBrowser, "the browser disconnected from webmcp-host: reopen the browser with the WebMCP bridge extension and call again")))
		return
	case s.dropped:
		h.mu.Unlock()
		return
	case h.pending[id] != nil:
		h.mu.Unlock()
		h.log.Printf("shim %s reused call id %q while that call is under way; answered bad_request", s.id, id)
		s.send(errorLine(id, protocol.Errorf(protocol.CodeBadRequest, "call id %q is already in use by a call under way: give every call its own id", id)))
		return
	}
	h.pending[id] = s
	h.mu.Unlock()
	h.log.Debugf("call %s → browser (%d bytes)", id, len(msg))
	s.out.Add(id, traced(msg, "host.call"))
}

// forwardCancel passes a shim's cancel to the browser if the call is still
// under way.
func (h *host) forwardCancel(s *session, id string, msg []byte) {
	if !s.owns(id) {
		h.log.Printf("shim %s cancelled call %q, which lacks its prefix %q; ignored", s.id, id, s.id+".")
		return
	}
	h.mu.Lock()
	owner := h.pending[id]
	h.mu.Unlock()
	if owner != s {
		h.log.Debugf("shim %s cancelled call %s, which is not under way; ignored", s.id, id)
		return
	}
	h.log.Debugf("cancel %s → browser", id)
	s.out.Add("", msg)
}

// routeAnswer passes a result or error from the browser to the shim that
// made the call; in a batch from the browser, it gathers the answers for
// each shim (sendGathered sends them). An answer to a call that is no
// longer under way (its shim went away) is dropped.
func (h *host) routeAnswer(env protocol.Envelope, line []byte) {
	s := h.takePending(env.ID)
	if s == nil {
		h.log.Debugf("dropped %s for call %s: no shim waits for it (it went away or the id is unknown)", withArticle(env.Type), env.ID)
		return
	}
	h.log.Debugf("%s %s → shim %s", env.Type, env.ID, s.id)
	line = traced(line, "host.answer")
	if h.gathering {
		for i := range h.gathered {
			if h.gathered[i].s == s {
				h.gathered[i].lines = append(h.gathered[i].lines, line...)
				return
			}
		}
		h.gathered = append(h.gathered, gathered{s, line})
		return
	}
	s.send(line)
}

// gathered is the answers of a batch from the browser for one shim, as
// lines one after the other.
type gathered struct {
	s     *session
	lines []byte
}

// sendGathered sends each shim the answers gathered for it, in one write:
// the shim reads them in one go.
func (h *host) sendGathered() {
	for i, g := range h.gathered {
		g.s.send(g.lines)
		h.gathered[i] = gathered{}
	}
	h.gathered = h.gathered[:0]
}

// takePending forgets the call id and returns the shim that was waiting
// for it, if any.
func (h *host) takePending(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.pending[id]
	delete(h.pending, id)
	return s
}

// dropSession forgets a shim that disconnected and cancels its calls under
// way in the browser.
func (h *host) dropSession(s *session, why string) {
	h.mu.Lock()
	delete(h.sessions, s.id)
	s.dropped = true
	var ids []string
	for id, owner := range h.pending {
		if owner == s {
			ids = append(ids, id)
			delete(h.pending, id)
		}
	}
	gone := h.gone
	h.mu.Unlock()
	s.closeQueue()
	if gone {
		h.log.Debugf("shim %s closed: %s", s.id, why)
		return
	}
	slices.Sort(ids)
	for _, id := range ids {
		b, _ := json.Marshal(&protocol.Message{Type: protocol.TypeCancel, ID: id})
		h.browserLink.Send(b)
	}
	if len(ids) > 0 {
		h.log.Printf("shim %s disconnected (%s); cancelled its %d calls under way", s.id, why, len(ids))
	} else {
		h.log.Printf("shim %s disconnected (%s)", s.id, why)
	}
	h.sendSessions()
}
