package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/internal/version"

	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// readBrowser handles the browser's messages until stdin ends. It returns
// nil at a clean end of input, and an error when the stream is broken (a
// cut or oversized frame) or the browser is refused.
func (h *host) readBrowser() error {
	for {
		m, err := h.browserLink.Receive()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, nativemsg.ErrTooLarge) {
				return fmt.Errorf("refusing the browser's frame: %w; the link cannot go on", err)
			}
			return fmt.Errorf("reading from the browser: %w", err)
		}
		if err := h.fromBrowser(m); err != nil {
			return err
		}
	}
}

// fromBrowser handles one message from the browser. Malformed and unknown
// messages are logged and skipped; only a protocol the host does not speak
// is an error. The answers of one batch go to each shim together, and
// before whatever other message came after them.
func (h *host) fromBrowser(m browserlink.Message) error {
	if m.Env.Type != protocol.TypeResult && m.Env.Type != protocol.TypeError {
		h.sendGathered() // the answers before it go first
	}
	// Gather while more of its batch follow, and the last with the others.
	h.gathering = m.More || len(h.gathered) > 0
	err := h.handleBrowser(m.Env, m.Body)
	if !m.More || err != nil {
		h.sendGathered()
		h.gathering = false
	}
	return err
}

// handleBrowser acts on one message from the browser, whose envelope is
// env.
func (h *host) handleBrowser(env protocol.Envelope, body []byte) error {
	switch env.Type {
	case protocol.TypeResult, protocol.TypeError:
		if env.ID == "" {
			h.log.Printf("the browser sent %s without a call id; skipped: %s", withArticle(env.Type), excerpt(body))
			return nil
		}
		h.routeAnswer(env, line(body))
	case protocol.TypeHello:
		var m protocol.Message
		if err := json.Unmarshal(body, &m); err != nil {
			h.log.Printf("the browser sent a malformed hello (%v); skipped: %s", err, excerpt(body))
			return nil
		}
		if m.Protocol != protocol.ProtocolVersion {
			return fmt.Errorf("the extension speaks bridge protocol %d, this webmcp-host speaks %d: update whichever is older", m.Protocol, protocol.ProtocolVersion)
		}
		h.browserLink.SetBatch(m.Browser != nil && m.Browser.Batch)
		h.setBrowser(m.Browser)
		h.sendSessions()
	case protocol.TypeState, protocol.TypeTabUpdated, protocol.TypeTabRemoved,
		protocol.TypeToolsAdded, protocol.TypeToolsRemoved, protocol.TypeContext, protocol.TypePins:
		var m protocol.Message
		if err := json.Unmarshal(body, &m); err != nil {
			h.log.Printf("the browser sent a malformed %s message (%v); skipped: %s", env.Type, err, excerpt(body))
			return nil
		}
		if what := missing(&m); what != "" {
			h.log.Printf("the browser sent a %s message without %s; skipped: %s", env.Type, what, excerpt(body))
			return nil
		}
		h.applyChange(&m, line(body))
	case protocol.TypeCall, protocol.TypeRequest, protocol.TypeCancel:
		h.log.Printf("the browser sent %s message, which only goes from the host to the browser; ignored", withArticle(env.Type))
	default:
		h.log.Printf("the browser sent a message of unknown type %q; ignored", env.Type)
	}
	return nil
}

// missing names the field that a change message needs and lacks.
func missing(m *protocol.Message) string {
	switch {
	case m.Type == protocol.TypeState && m.State == nil:
		return `"state"`
	case m.Type == protocol.TypeTabUpdated && m.Tab == nil:
		return `"tab"`
	case m.Type == protocol.TypeTabRemoved && m.TabID == 0:
		return `"tabId"`
	case m.Type == protocol.TypeContext && m.Context == nil:
		return `"context"`
	}
	return ""
}

// sendHostHello tells the browser which host it talks to.
func (h *host) sendHostHello() {
	b, err := json.Marshal(&protocol.Message{
		Type:     protocol.TypeHello,
		Protocol: protocol.ProtocolVersion,
		Host:     &protocol.HostInfo{PID: h.pid, Socket: h.socket, Version: version.Version, Batch: true},
	})
	if err == nil {
		err = h.browserLink.Send(b)
	}
	if err != nil {
		h.log.Printf("sending hello to the browser: %v", err)
	}
}

// line makes a browser message one line for the shims: compact JSON and a
// newline. The message is valid JSON (the link checked it), so a newline
// in it can only be white space between tokens, which Compact removes; a
// message without one is passed on as is.
func line(body []byte) []byte {
	if bytes.IndexByte(body, '\n') < 0 {
		out := make([]byte, len(body)+1)
		copy(out, body)
		out[len(body)] = '\n'
		return out
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + 1)
	if err := json.Compact(&buf, body); err != nil {
		// Cannot happen for valid JSON; keep the line intact anyway.
		return append(bytes.ReplaceAll(body, []byte("\n"), []byte(" ")), '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// excerpt quotes the start of a message for a log line.
func excerpt(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// withArticle puts an article before a message type for a log line: "a
// result", "an error".
func withArticle(typ string) string {
	switch typ {
	case protocol.TypeError:
		return "an error"
	}
	return "a " + typ
}
