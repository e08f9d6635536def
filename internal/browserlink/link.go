// Package browserlink is webmcp-host's end of the native-messaging link to
// the browser: what the protocol's batch and chunk messages are to that
// link (see package protocol), kept in one place so that the host's routers
// handle one whole message at a time.
//
// A [Link] sends each message as one frame, as chunks when it is over the
// link's frame limit, and the messages that are ready together as one
// batch once the browser said it takes batches ([Link.SetBatch]); a
// [Queue] holds one sender's messages until they are ready together, or,
// under load, a moment longer. On the way in, [Link.Receive] reads frames
// and returns single messages: batches unpacked, chunks joined, each
// message checked once and its envelope peeked.
//
// The package is to the browser's link what package internal/lines is to
// the shims' sockets.
//
// Production code.
package browserlink

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Options configure a [Link]. The zero Options log nothing and never hold.
type Options struct {
	// Logf logs one line of the link's own: a message it skipped, a
	// write that failed. Nil discards them.
	Logf func(format string, args ...any)
	// Debugf logs a debug line: a batch, a chunked message. Nil discards
	// them.
	Debugf func(format string, args ...any)

	// MaxJoined bounds a message joined from chunks: one that grows past
	// it is dropped and logged. Zero means protocol.MaxMessage.
	MaxJoined int

	// Hold is the longest that a [Queue] holds its messages for more to
	// join them, and only while the browser takes batches, fewer than
	// HoldMax are held and UnderLoad says so. Zero or less: never.
	Hold time.Duration
	// HoldMax is how many held messages make a batch that goes at once.
	HoldMax int
	// UnderLoad says whether held messages (held of them) are to wait for
	// more to join them. Nil means never. It is called with the queue's
	// lock held.
	UnderLoad func(held int) bool
}

// Link is the host's end of the link to the browser. Its sending side
// (Send, SendMany, Queue) is safe for concurrent use; its receiving side
// (Receive) is for one goroutine.
type Link struct {
	r    *nativemsg.Reader
	w    *nativemsg.Writer
	opts Options

	// wmu keeps each message whole, chunked or not.
	wmu      sync.Mutex
	chunkSeq atomic.Uint64
	failed   atomic.Bool // a write failed (logged once)
	batch    atomic.Bool // the browser takes batches

	// The receiver's own.
	joiner protocol.Joiner
	ahead  []protocol.Peeked // the rest of the batch that Receive hands out
}

// New returns a Link that reads the browser's frames from r and writes
// frames to w, of at most w.Max() bytes each.
func New(r *nativemsg.Reader, w *nativemsg.Writer, opts Options) *Link {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Debugf == nil {
		opts.Debugf = func(string, ...any) {}
	}
	if opts.MaxJoined <= 0 {
		opts.MaxJoined = protocol.MaxMessage
	}
	return &Link{r: r, w: w, opts: opts, joiner: protocol.Joiner{Max: opts.MaxJoined}}
}

// SetBatch records whether the browser takes batches (its hello's
// "batch"); until it is set, every message goes alone.
func (l *Link) SetBatch(ok bool) { l.batch.Store(ok) }

// Batch says whether the browser takes batches.
func (l *Link) Batch() bool { return l.batch.Load() }

// Send sends one message to the browser: as one frame, or as chunks when
// it is over the frame limit.
func (l *Link) Send(msg []byte) error {
	frames := [][]byte{msg}
	if len(msg) > l.w.Max() {
		id := "c" + strconv.FormatUint(l.chunkSeq.Add(1), 10)
		var err error
		if frames, err = protocol.Chunks(id, msg, l.w.Max()); err != nil {
			return fmt.Errorf("cutting a %d-byte message into chunks: %w", len(msg), err)
		}
		l.opts.Debugf("sending a %d-byte message to the browser as %d chunks (%s)", len(msg), len(frames), id)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for _, f := range frames {
		if err := l.w.Write(f); err != nil {
			if !l.failed.Swap(true) {
				l.opts.Logf("writing to the browser: %v", err)
			}
			return fmt.Errorf("writing to the browser: %w", err)
		}
	}
	return nil
}

// SendMany sends msgs to the browser in order: as one batch message when
// the browser takes batches and they fit in one frame together, else one
// by one ([Link.Send]). It returns how many went (all of them, or those
// before the one that failed) and the error.
func (l *Link) SendMany(msgs [][]byte) (int, error) {
	if len(msgs) > 1 && l.batch.Load() {
		size := protocol.BatchOverhead + len(msgs) - 1
		for _, m := range msgs {
			size += len(m)
		}
		if size <= l.w.Max() {
			l.opts.Debugf("%d messages → browser in one batch (%d bytes)", len(msgs), size)
			if err := l.Send(protocol.AppendBatch(make([]byte, 0, size), msgs)); err != nil {
				return 0, err
			}
			return len(msgs), nil
		}
	}
	for i, m := range msgs {
		if err := l.Send(m); err != nil {
			return i, err
		}
	}
	return len(msgs), nil
}

// Message is one message from the browser.
type Message struct {
	// Body is its JSON text as the browser sent it (joined, when it came
	// in chunks).
	Body []byte
	// Env is its envelope (protocol.PeekEnvelope).
	Env protocol.Envelope
	// More says that another message that came with it (in the same
	// batch) follows: the next Receive returns it without waiting.
	More bool
}

// Receive returns the next message from the browser. It unpacks batches
// and joins chunks, and logs and skips what is malformed: a message whose
// envelope cannot be read (see protocol.PeekEnvelope), a malformed batch
// or chunk, a batch inside a batch or a joined message, a chunk inside
// one. At a clean end of input it returns io.EOF; other errors are
// nativemsg.Reader's, after which the link cannot be read on.
func (l *Link) Receive() (Message, error) {
	for {
		if len(l.ahead) > 0 {
			one := l.ahead[0]
			l.ahead[0] = protocol.Peeked{}
			l.ahead = l.ahead[1:]
			return Message{Body: one.Body, Env: one.Env, More: len(l.ahead) > 0}, nil
		}
		body, err := l.r.Read()
		if err != nil {
			return Message{}, err
		}
		env, batch, err := protocol.PeekFrame(body)
		if err != nil {
			l.opts.Logf("the browser sent a %v; skipped: %s", err, excerpt(body))
			continue
		}
		switch env.Type {
		case protocol.TypeBatch:
			l.opts.Debugf("a batch of %d messages from the browser", len(batch))
			l.ahead = l.sound(batch)
		case protocol.TypeChunk:
			if m, ok := l.join(body); ok {
				return m, nil
			}
		default:
			return Message{Body: body, Env: env}, nil
		}
	}
}

// sound keeps the messages of a batch that are to be handled, and logs
// the others, in order.
func (l *Link) sound(batch []protocol.Peeked) []protocol.Peeked {
	out := batch[:0]
	for _, one := range batch {
		if l.inner(one.Body, one.Env, one.Err) {
			out = append(out, one)
		}
	}
	clear(batch[len(out):])
	return out
}

// inner says whether a message that came in a batch or chunks is to be
// handled, and logs why not.
func (l *Link) inner(body []byte, env protocol.Envelope, err error) bool {
	switch {
	case err != nil:
		l.opts.Logf("the browser sent a %v; skipped: %s", err, excerpt(body))
	case env.Type == protocol.TypeBatch:
		l.opts.Logf("the browser sent a batch inside a chunked message or a batch; skipped")
	case env.Type == protocol.TypeChunk:
		l.opts.Logf("the browser sent a chunk inside a chunked message; skipped")
	default:
		return true
	}
	return false
}

// join takes one chunk (a message over protocol.MaxBrowserChunk) and
// returns the message once its last piece is in.
func (l *Link) join(body []byte) (Message, bool) {
	var m protocol.Message
	if err := json.Unmarshal(body, &m); err != nil || m.ID == "" {
		l.opts.Logf("the browser sent a malformed chunk (%v); skipped: %s", err, excerpt(body))
		return Message{}, false
	}
	msg, done, err := l.joiner.Add(&m)
	if err != nil {
		l.opts.Logf("the browser's chunked message: %v", err)
		return Message{}, false
	}
	if !done {
		return Message{}, false
	}
	l.opts.Debugf("joined a %d-byte message from the browser's chunks (%s)", len(msg), m.ID)
	env, err := protocol.PeekEnvelope(msg)
	if !l.inner(msg, env, err) {
		return Message{}, false
	}
	return Message{Body: msg, Env: env}, true
}

// excerpt quotes the start of a message for a log line.
func excerpt(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}
