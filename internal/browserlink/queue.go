package browserlink

import (
	"sync"
	"time"
)

// Queue holds one sender's messages for the browser until the sender has
// all that are ready together, and sends them as one batch
// ([Link.SendMany]); under load ([Options.UnderLoad]) it holds them a
// moment more ([Options.Hold]) for the sender's next messages to join
// them. Its methods are safe for concurrent use: the sender adds, and the
// sender or the hold's timer sends.
type Queue struct {
	l *Link
	// failed is told which held messages did not go (their tags) and why.
	failed func(tags []string, err error)

	mu      sync.Mutex
	msgs    [][]byte
	tags    []string
	size    int         // bytes in msgs
	timer   *time.Timer // ends a hold: sends what is held
	holding bool        // msgs wait for timer
}

// NewQueue returns an empty Queue that sends to the browser over l. When
// messages it held could not go, failed is called with their tags, in
// order, and the error; with the queue's lock held, so it must not call
// the queue.
func (l *Link) NewQueue(failed func(tags []string, err error)) *Queue {
	return &Queue{l: l, failed: failed}
}

// Add holds msg until the queue sends; tag is the caller's name for it
// (given back to failed).
func (q *Queue) Add(tag string, msg []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, msg)
	q.tags = append(q.tags, tag)
	q.size += len(msg)
}

// Full says whether what is held must go now: a frame's worth of bytes,
// or, in a hold, Options.HoldMax messages (messages added before
// SendOrHold are not cut at HoldMax).
func (q *Queue) Full() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.size >= q.l.w.Max() || q.holding && len(q.msgs) >= q.l.opts.HoldMax
}

// SendOrHold sends what is held, or, under load, holds it up to
// Options.Hold for more to join it: when the browser takes batches, fewer
// than Options.HoldMax are held and Options.UnderLoad says so. A hold
// already running goes on: its timer, or a full batch (Full, Flush),
// sends.
func (q *Queue) SendOrHold() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.msgs) == 0 || q.holding {
		return
	}
	o := &q.l.opts
	if o.Hold > 0 && o.UnderLoad != nil && q.l.Batch() && len(q.msgs) < o.HoldMax && o.UnderLoad(len(q.msgs)) {
		q.holding = true
		if q.timer == nil {
			q.timer = time.AfterFunc(o.Hold, q.Flush)
		} else {
			q.timer.Reset(o.Hold)
		}
		return
	}
	q.send()
}

// Flush sends what is held now, ending a hold.
func (q *Queue) Flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.send()
}

// send sends the held messages, several as one batch. The caller holds
// q.mu.
func (q *Queue) send() {
	if q.holding {
		q.holding = false
		q.timer.Stop()
	}
	if len(q.msgs) == 0 {
		return
	}
	n, err := q.l.SendMany(q.msgs)
	if err != nil && q.failed != nil {
		q.failed(q.tags[n:], err)
	}
	clear(q.msgs)
	q.msgs, q.tags, q.size = q.msgs[:0], q.tags[:0], 0
}
