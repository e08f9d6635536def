package host

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/internal/lines"
	"github.com/webmcp-bridge/bridge/protocol"
)

// maxShimLine is the longest line the host takes from a shim.
const maxShimLine = protocol.MaxBrowserFrame

// The read buffer of a shim connection: small until the shim's hello, so
// that connections which never say hello cost little (the host takes
// DefaultMaxShims of them), then big enough for the lines of many calls
// to come in together.
const (
	helloBuffer = 4 << 10
	readBuffer  = 64 << 10
)

// session is one shim connection. A reader goroutine handles the shim's
// messages; a writer goroutine drains a bounded queue of lines for the shim,
// so that a slow shim never blocks the browser link or other shims (a line
// for an idle shim is written by its sender, as far as the socket takes it
// without waiting: see send).
type session struct {
	h    *host
	id   string
	conn net.Conn

	// dropped is set, under h.mu, once the host has forgotten the session.
	dropped bool
	// pid is the shim's process id as the system recorded it at connect,
	// 0 where it cannot tell; the pid the shim claims is never passed on
	// (see ownPID).
	pid int
	// client is what the shim said about itself (hello, client), under
	// h.mu; nil before its hello.
	client *protocol.ClientInfo

	// out holds the reader's messages for the browser until it has
	// handled every line that came in with them, or longer under load
	// (coalesce.go), each tagged with its call id ("" for a cancel): the
	// reader adds, and the reader or the hold's timer sends.
	out *browserlink.Queue

	// saidHello is set by the reader once the shim said hello.
	saidHello bool

	// direct writes to the connection without waiting (tryWrite), or is
	// nil where it cannot: then every line goes through the writer.
	direct func([]byte) int

	mu      sync.Mutex
	queue   [][]byte
	queued  int  // bytes in queue
	closed  bool // no more lines are taken
	writing bool // the writer, or a sender itself (send), is writing
	why     string
	wake    chan struct{}
}

// addSession starts serving a shim connection from process pid (as the
// system recorded it; 0 where it cannot tell): it sends the shim hello and
// the current state, and joins it to the broadcasts.
func (h *host) addSession(c net.Conn, pid int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gone {
		c.Close()
		return
	}
	if len(h.sessions) >= h.maxShims {
		h.log.Printf("refused a shim: %d shims are connected already, the most one host takes (close agent sessions you no longer use)", len(h.sessions))
		c.Close()
		return
	}
	h.nextSession++
	s := &session{h: h, id: "s" + strconv.Itoa(h.nextSession), conn: c, pid: pid, wake: make(chan struct{}, 1), direct: tryWrite(c)}
	s.out = h.newOut(s)
	h.sessions[s.id] = s
	h.greet(s)
	h.sessionWG.Add(2)
	go s.readLoop()
	go s.writeLoop()
	h.log.Printf("shim %s connected", s.id)
}

// send queues a line for the shim. It never blocks: a shim whose queue is
// over the limits is disconnected. When nothing waits and nobody writes, the
// sender writes the line itself as far as the socket takes it without
// waiting, and queues the rest: an answer then reaches the shim without
// waking the writer goroutine.
func (s *session) send(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if len(s.queue) >= s.h.qlen || s.queued+len(line) > s.h.qbytes {
		s.closed = true
		s.why = fmt.Sprintf("it fell behind: %d messages (%d bytes) were waiting for it", len(s.queue), s.queued)
		s.queue, s.queued = nil, 0
		s.conn.Close() // ends both loops; the reader drops the session
		return
	}
	if s.direct != nil && len(s.queue) == 0 && !s.writing {
		s.writing = true
		s.mu.Unlock()
		n := s.direct(line)
		s.mu.Lock()
		s.writing = false
		if n < len(line) {
			// The rest goes first: lines queued meanwhile came after it.
			s.queue = append([][]byte{line[n:]}, s.queue...)
			s.queued += len(line) - n
		}
		if len(s.queue) > 0 || s.closed {
			s.signal()
		}
		return
	}
	s.queue = append(s.queue, line)
	s.queued += len(line)
	s.signal()
}

// closeQueue lets the writer finish what is queued and then close the
// connection.
func (s *session) closeQueue() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
}

func (s *session) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes queued lines to the shim, as many at a time as are
// waiting, until the queue is closed and empty.
func (s *session) writeLoop() {
	defer s.h.sessionWG.Done()
	defer s.conn.Close()
	for {
		s.mu.Lock()
		if s.writing {
			// A sender writes a line itself; it wakes the writer when done.
			s.mu.Unlock()
			<-s.wake
			continue
		}
		batch, closed := s.queue, s.closed
		s.queue, s.queued = nil, 0
		s.writing = len(batch) > 0 // senders queue meanwhile
		s.mu.Unlock()
		if len(batch) > 0 {
			bufs := net.Buffers(batch)
			_, err := bufs.WriteTo(s.conn)
			s.mu.Lock()
			s.writing = false
			if err != nil {
				if s.why == "" {
					s.why = fmt.Sprintf("writing to it failed: %v", err)
				}
				s.closed = true
				s.queue, s.queued = nil, 0
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

// readLoop handles the shim's lines until the connection ends, then drops
// the session.
func (s *session) readLoop() {
	defer s.h.sessionWG.Done()
	r := bufio.NewReaderSize(s.conn, helloBuffer)
	grown := false
	var why string
	for {
		l, err := lines.Read(r, maxShimLine)
		if err != nil {
			switch {
			case errors.Is(err, io.EOF):
				why = "it closed the connection"
			case errors.Is(err, lines.ErrTooLong):
				why = "it sent " + err.Error()
			default:
				why = err.Error()
			}
			break
		}
		ok := s.handle(l)
		if s.saidHello && !grown {
			// What the small buffer holds still comes first.
			r, grown = bufio.NewReaderSize(r, readBuffer), true
		}
		// Lines that came in together go to the browser together: the
		// messages wait while a whole next line is in the buffer already,
		// and under load a moment more (SendOrHold).
		switch {
		case !ok || s.out.Full():
			s.out.Flush()
		case !lineBuffered(r):
			s.out.SendOrHold()
		}
		if !ok {
			// Let the writer deliver the refusal, then close.
			why = "it speaks another bridge protocol version"
			s.conn.SetWriteDeadline(time.Now().Add(drainTimeout))
			s.h.dropSession(s, why)
			return
		}
	}
	s.out.Flush()
	s.conn.Close()
	s.mu.Lock()
	if s.why != "" {
		why = s.why
	}
	s.mu.Unlock()
	s.h.dropSession(s, why)
}

// lineBuffered says whether r holds a whole line already, so that reading
// it does not wait.
func lineBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// handle acts on one line from the shim. Malformed and unknown messages are
// logged and skipped. It returns false when the connection must end.
func (s *session) handle(l []byte) bool {
	l = bytes.TrimRight(l, "\r")
	if len(bytes.TrimSpace(l)) == 0 {
		return true
	}
	if !utf8.Valid(l) {
		s.h.log.Printf("shim %s sent a line that is not UTF-8; skipped: %s", s.id, excerpt(l))
		return true
	}
	env, err := protocol.PeekEnvelope(l)
	if err != nil {
		s.h.log.Printf("shim %s sent a %v; skipped: %s", s.id, err, excerpt(l))
		return true
	}
	switch env.Type {
	case protocol.TypeCall, protocol.TypeRequest:
		s.h.forwardCall(s, env.ID, l)
	case protocol.TypeCancel:
		s.h.forwardCancel(s, env.ID, l)
	case protocol.TypeHello:
		var m protocol.Message
		if err := json.Unmarshal(l, &m); err != nil {
			s.h.log.Printf("shim %s sent a malformed hello (%v); skipped: %s", s.id, err, excerpt(l))
			return true
		}
		if m.Protocol != protocol.ProtocolVersion {
			s.h.log.Printf("shim %s speaks bridge protocol %d, this host speaks %d; disconnecting it", s.id, m.Protocol, protocol.ProtocolVersion)
			s.send(encodeLine(&protocol.Message{Type: protocol.TypeError, Error: protocol.Errorf(protocol.CodeBadRequest,
				"this webmcp-host speaks bridge protocol %d, not %d: use a webmcp-shim of the same release", protocol.ProtocolVersion, m.Protocol)}))
			return false
		}
		c := m.Client
		if c == nil {
			c = &protocol.ClientInfo{}
		}
		s.ownPID(c)
		s.h.log.Printf("shim %s is %s, pid %d", s.id, c.Name, c.PID)
		s.saidHello = true
		s.h.setClient(s, c)
	case protocol.TypeClient:
		var m protocol.Message
		if err := json.Unmarshal(l, &m); err != nil || m.Client == nil {
			s.h.log.Printf("shim %s sent a malformed client message; skipped: %s", s.id, excerpt(l))
			return true
		}
		s.ownPID(m.Client)
		s.h.log.Printf("shim %s serves %s", s.id, agentNames(m.Client.Agents))
		s.h.setClient(s, m.Client)
	case protocol.TypeResult, protocol.TypeError, protocol.TypeChunk, protocol.TypeState, protocol.TypeTabUpdated, protocol.TypeSessions,
		protocol.TypeTabRemoved, protocol.TypeToolsAdded, protocol.TypeToolsRemoved, protocol.TypeContext, protocol.TypePins:
		s.h.log.Printf("shim %s sent %s message, which the host does not take from shims; ignored", s.id, withArticle(env.Type))
	default:
		s.h.log.Printf("shim %s sent a message of unknown type %q; ignored", s.id, env.Type)
	}
	return true
}

// ownPID puts the shim's pid as the system recorded it into what the shim
// said about itself. The extension keys the tabs a shim opened on it, so
// a claim of another pid, which would let one shim act on another's tabs,
// is logged and ignored; where the system cannot tell (pid 0) no pid goes
// on, and the extension keys on the session.
func (s *session) ownPID(c *protocol.ClientInfo) {
	if c.PID != s.pid && c.PID != 0 {
		if s.pid == 0 {
			s.h.log.Debugf("shim %s says it is process %d, which this system cannot confirm; ignored", s.id, c.PID)
		} else {
			s.h.log.Printf("shim %s says it is process %d, but the system says %d; the claim is ignored", s.id, c.PID, s.pid)
		}
	}
	c.PID = s.pid
}

// agentNames lists agents for the log: "claude-code 2.1.0 (a1), …", or
// "no agent".
func agentNames(agents []protocol.AgentInfo) string {
	if len(agents) == 0 {
		return "no agent"
	}
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = strings.TrimSpace(a.Name+" "+a.Version) + " (" + a.ID + ")"
	}
	return strings.Join(names, ", ")
}
