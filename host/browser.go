package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/webmcp-bridge/bridge/internal/version"

	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// readBrowser reads the browser's frames until stdin ends. It returns nil at
// a clean end of input, and an error when the stream is broken (a cut or
// oversized frame) or the browser is refused.
func (h *host) readBrowser(r *nativemsg.Reader) error {
	for {
		body, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, nativemsg.ErrTooLarge) {
				return fmt.Errorf("refusing the browser's frame: %w; the link cannot go on", err)
			}
			return fmt.Errorf("reading from the browser: %w", err)
		}
		if err := h.fromBrowser(body); err != nil {
			return err
		}
	}
}

// fromBrowser handles one message from the browser. Malformed and unknown
// messages are logged and skipped; only a protocol the host does not speak
// is an error.
func (h *host) fromBrowser(body []byte) error {
	return h.fromBrowserMsg(body, false)
}

// fromBrowserMsg is fromBrowser; joined says body was joined from chunks
// or came in a batch (a chunk or a batch inside it is refused).
func (h *host) fromBrowserMsg(body []byte, joined bool) error {
	env, err := protocol.PeekEnvelope(body)
	if err != nil {
		h.log.Printf("the browser sent a %v; skipped: %s", err, excerpt(body))
		return nil
	}
	if env.Type != protocol.TypeResult && env.Type != protocol.TypeError {
		h.sendGathered() // the answers before it go first
	}
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
		h.batchOK.Store(m.Browser != nil && m.Browser.Batch)
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
	case protocol.TypeBatch:
		if joined {
			h.log.Printf("the browser sent a batch inside a chunked message or a batch; skipped")
			return nil
		}
		var m protocol.Message
		if err := json.Unmarshal(body, &m); err != nil {
			h.log.Printf("the browser sent a malformed batch (%v); skipped: %s", err, excerpt(body))
			return nil
		}
		h.log.Debugf("a batch of %d messages from the browser", len(m.Messages))
		// Its answers go to each shim together, and before whatever
		// other message came after them.
		h.gathering = true
		defer func() {
			h.sendGathered()
			h.gathering = false
		}()
		for _, one := range m.Messages {
			if err := h.fromBrowserMsg(one, true); err != nil {
				return err
			}
		}
	case protocol.TypeChunk:
		if joined {
			h.log.Printf("the browser sent a chunk inside a chunked message; skipped")
			return nil
		}
		return h.joinChunk(body)
	case protocol.TypeCall, protocol.TypeRequest, protocol.TypeCancel:
		h.log.Printf("the browser sent %s message, which only goes from the host to the browser; ignored", withArticle(env.Type))
	default:
		h.log.Printf("the browser sent a message of unknown type %q; ignored", env.Type)
	}
	return nil
}

// joinChunk takes one chunk from the browser (a message over
// protocol.MaxBrowserChunk) and handles the message once its last piece is
// in. Only the browser's reading goroutine calls it.
func (h *host) joinChunk(body []byte) error {
	var m protocol.Message
	if err := json.Unmarshal(body, &m); err != nil || m.ID == "" {
		h.log.Printf("the browser sent a malformed chunk (%v); skipped: %s", err, excerpt(body))
		return nil
	}
	msg, done, err := h.joiner.Add(&m)
	if err != nil {
		h.log.Printf("the browser's chunked message: %v", err)
		return nil
	}
	if !done {
		return nil
	}
	h.log.Debugf("joined a %d-byte message from the browser's chunks (%s)", len(msg), m.ID)
	return h.fromBrowserMsg(msg, true)
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

// toBrowser sends one message to the browser: as one frame, or as chunks
// when it is over protocol.MaxHostFrame. It is safe for concurrent use.
func (h *host) toBrowser(msg []byte) error {
	frames := [][]byte{msg}
	if len(msg) > protocol.MaxHostFrame {
		id := "c" + strconv.FormatUint(h.chunkSeq.Add(1), 10)
		var err error
		if frames, err = protocol.Chunks(id, msg, protocol.MaxHostFrame); err != nil {
			return fmt.Errorf("cutting a %d-byte message into chunks: %w", len(msg), err)
		}
		h.log.Debugf("sending a %d-byte message to the browser as %d chunks (%s)", len(msg), len(frames), id)
	}
	h.bmu.Lock()
	defer h.bmu.Unlock()
	for _, f := range frames {
		if err := h.bw.Write(f); err != nil {
			if !h.bwFailed.Swap(true) {
				h.log.Printf("writing to the browser: %v", err)
			}
			return fmt.Errorf("writing to the browser: %w", err)
		}
	}
	return nil
}

// toBrowserMany sends msgs to the browser in order: as one batch message
// when the browser takes batches and they fit in one frame together, else
// one by one (toBrowser). It returns how many went (all of them, or those
// before the one that failed) and the error.
func (h *host) toBrowserMany(msgs [][]byte) (int, error) {
	if len(msgs) > 1 && h.batchOK.Load() {
		size := protocol.BatchOverhead + len(msgs) - 1
		for _, m := range msgs {
			size += len(m)
		}
		if size <= protocol.MaxHostFrame {
			h.log.Debugf("%d messages → browser in one batch (%d bytes)", len(msgs), size)
			if err := h.toBrowser(protocol.AppendBatch(make([]byte, 0, size), msgs)); err != nil {
				return 0, err
			}
			return len(msgs), nil
		}
	}
	for i, m := range msgs {
		if err := h.toBrowser(m); err != nil {
			return i, err
		}
	}
	return len(msgs), nil
}

// sendHostHello tells the browser which host it talks to.
func (h *host) sendHostHello() {
	b, err := json.Marshal(&protocol.Message{
		Type:     protocol.TypeHello,
		Protocol: protocol.ProtocolVersion,
		Host:     &protocol.HostInfo{PID: h.pid, Socket: h.socket, Version: version.Version, Batch: true},
	})
	if err == nil {
		err = h.toBrowser(b)
	}
	if err != nil {
		h.log.Printf("sending hello to the browser: %v", err)
	}
}

// line makes a browser message one line for the shims: compact JSON and a
// newline. The message is valid JSON (PeekEnvelope checked it), so a newline
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
