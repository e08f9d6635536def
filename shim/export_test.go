package shim

import (
	"testing"

	"github.com/webmcp-bridge/bridge/shim/hostlink"
)

// EndGraces ends now the grace (HostGrace) of every browser whose host
// went away, as its timer would when it runs out: tests drive the grace by
// this event instead of racing a short one.
func (s *Server) EndGraces() {
	s.mu.Lock()
	var ended []*hostlink.Conn
	for c, timer := range s.orphans {
		if timer.Stop() {
			ended = append(ended, c)
		}
	}
	s.mu.Unlock()
	for _, c := range ended {
		s.endGrace(c)
	}
}

// SetMaxArguments lowers the shim's limit of a call's arguments until the
// test ends, and returns the limit it had.
func SetMaxArguments(t testing.TB, n int) (was int) {
	was = maxArguments
	maxArguments = n
	t.Cleanup(func() { maxArguments = was })
	return was
}
