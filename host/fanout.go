package host

import (
	"encoding/json"

	"github.com/webmcp-bridge/bridge/internal/version"

	"github.com/webmcp-bridge/bridge/protocol"
)

// applyChange applies a state message or change from the browser to the
// host's state and passes it on to every shim as the browser sent it.
func (h *host) applyChange(m *protocol.Message, line []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.state.Apply(m)
	h.greeting = nil
	for _, s := range h.sessions {
		s.send(line)
	}
}

// setBrowser records the browser's identity from its hello and sends every
// shim a new hello that carries it.
func (h *host) setBrowser(b *protocol.Browser) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.browser = b
	if b != nil {
		h.log.Printf("browser: %s %s, extension %s, instance %s", b.Name, b.Version, b.ExtensionID, b.Instance)
	}
	for _, s := range h.sessions {
		s.send(h.helloLine(s.id))
	}
}

// greet queues the hello and the current state for a new shim. The caller
// holds h.mu, so that no change slips in between the state and the
// broadcasts that follow it. The state's lines are encoded once for every
// shim that connects until it changes: a shim that never reads holds the
// shared lines, not a copy of its own.
func (h *host) greet(s *session) {
	s.send(h.helloLine(s.id))
	if h.greeting == nil {
		h.greeting = stateLines(h.state.Snapshot(), protocol.MaxBrowserChunk)
	}
	for _, l := range h.greeting {
		s.send(l)
	}
}

// stateLines are the lines that carry a state to a shim: one state line
// when it is at most max bytes (protocol.MaxBrowserChunk); else the state
// without tools, then its tools in toolsAdded lines of at most a quarter of
// max each (but one tool at least), so that no line nears the shim's limit
// (protocol.MaxMessage) however many big tabs there are. The extension sends
// a big state the same way.
func stateLines(snap *protocol.Snapshot, max int) [][]byte {
	whole := encodeLine(&protocol.Message{Type: protocol.TypeState, State: snap})
	if len(whole) <= max {
		return [][]byte{whole}
	}
	tools := snap.Tools
	bare := *snap
	bare.Tools = []protocol.Tool{}
	out := [][]byte{encodeLine(&protocol.Message{Type: protocol.TypeState, State: &bare})}
	batch := max / 4
	for start, size := 0, 0; start < len(tools); {
		end := start
		for size = 0; end < len(tools); end++ {
			b, _ := json.Marshal(&tools[end])
			if end > start && size+len(b) > batch {
				break
			}
			size += len(b)
		}
		out = append(out, encodeLine(&protocol.Message{Type: protocol.TypeToolsAdded, Tools: tools[start:end]}))
		start = end
	}
	return out
}

// helloLine is the host's hello to the shim with the given session id. The
// caller holds h.mu.
func (h *host) helloLine(session string) []byte {
	return encodeLine(&protocol.Message{
		Type:     protocol.TypeHello,
		Protocol: protocol.ProtocolVersion,
		Session:  session,
		Host:     &protocol.HostInfo{PID: h.pid, Socket: h.socket, Version: version.Version},
		Browser:  h.browser,
	})
}

// errorLine is an error answer to a call, as a line for a shim.
func errorLine(id string, e *protocol.Error) []byte {
	return encodeLine(&protocol.Message{Type: protocol.TypeError, ID: id, Error: e})
}

// encodeLine encodes a message of the host's own as a line for a shim.
func encodeLine(m *protocol.Message) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		// Only a RawMessage field could fail, and the host sets those
		// from decoded JSON; answer with an internal error regardless.
		b, _ = json.Marshal(&protocol.Message{Type: protocol.TypeError, ID: m.ID,
			Error: protocol.Errorf(protocol.CodeInternal, "webmcp-host could not encode a %s message: %v", m.Type, err)})
	}
	return append(b, '\n')
}
