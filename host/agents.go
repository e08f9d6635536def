package host

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/webmcp-bridge/bridge/protocol"
)

// setClient records what a shim said about itself and tells the browser.
func (h *host) setClient(s *session, c *protocol.ClientInfo) {
	h.mu.Lock()
	if s.dropped {
		h.mu.Unlock()
		return
	}
	s.client = c
	h.mu.Unlock()
	h.sendSessions()
}

// sendSessions tells the browser every shim that said hello: its session
// id and what it said about itself. The lists go out in the order they were
// taken, so the browser's latest is the host's latest.
func (h *host) sendSessions() {
	h.sessionsMu.Lock()
	defer h.sessionsMu.Unlock()
	h.mu.Lock()
	if h.gone {
		h.mu.Unlock()
		return
	}
	list := []protocol.Session{}
	for _, s := range h.sessions {
		if s.client != nil {
			list = append(list, protocol.Session{ID: s.id, Client: *s.client})
		}
	}
	h.mu.Unlock()
	slices.SortFunc(list, func(a, b protocol.Session) int {
		return cmp.Compare(sessionNumber(a.ID), sessionNumber(b.ID))
	})
	b, err := json.Marshal(&protocol.Message{Type: protocol.TypeSessions, Sessions: list})
	if err == nil {
		err = h.browserLink.Send(b)
	}
	if err != nil {
		h.log.Debugf("telling the browser its shims: %v", err)
	}
}

// sessionNumber is n of a session id "s<n>".
func sessionNumber(id string) int {
	n, _ := strconv.Atoi(id[min(1, len(id)):])
	return n
}
