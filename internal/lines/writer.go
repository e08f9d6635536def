package lines

import (
	"io"
	"runtime"
	"sync"
)

// Writer writes whole messages (one or more lines each) for many goroutines
// to one stream, and gathers the messages that goroutines write at the same
// moment into one write of the stream: under load, one system call and one
// wake-up of the reader carry several messages, and one at a time nothing
// waits. The zero Writer is not usable; make one with [NewWriter].
type Writer struct {
	w io.Writer

	mu   sync.Mutex
	busy bool   // a goroutine is writing
	open *batch // what joined while it writes, for the next write
	err  error  // the stream's first write error; every later write fails with it
}

// A batch is messages gathered for one write of the stream.
type batch struct {
	buf  []byte
	done chan struct{} // closed once buf is written, or failed (err)
	n    int           // how much of buf went out
	err  error
}

// NewWriter returns a Writer to w. Its writes to w never overlap.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Write writes p, whole, between the messages of other goroutines; it
// returns once p is written, alone or with messages that joined it. When
// the stream fails, the messages of that write that went out whole succeed
// and the others (the one cut, those after it) fail with its error, as
// does every later Write: the stream is not usable after it.
func (g *Writer) Write(p []byte) (int, error) {
	g.mu.Lock()
	if g.err != nil {
		err := g.err
		g.mu.Unlock()
		return 0, err
	}
	if g.busy {
		// Another goroutine writes: join the next write, which it makes
		// (or the goroutine after it) as soon as its own is done.
		if g.open == nil {
			g.open = &batch{done: make(chan struct{})}
		}
		b := g.open
		b.buf = append(b.buf, p...)
		end := len(b.buf)
		g.mu.Unlock()
		<-b.done
		if b.n < end {
			return 0, b.err
		}
		return len(p), nil
	}
	g.busy = true
	g.mu.Unlock()

	// Let goroutines that are about to write join this write; with none
	// runnable, this returns at once.
	runtime.Gosched()
	g.mu.Lock()
	joined := g.open
	g.open = nil
	g.mu.Unlock()
	var n int
	var err error
	if joined == nil {
		n, err = g.w.Write(p)
	} else {
		// p first, then what joined: shift their ends by len(p).
		joined.buf = append(p[:len(p):len(p)], joined.buf...)
		n, err = g.w.Write(joined.buf)
		joined.finish(n-len(p), err)
	}
	ok := n >= len(p)
	// Write what joined meanwhile, then hand the stream back.
	for err == nil {
		g.mu.Lock()
		b := g.open
		g.open = nil
		if b == nil {
			g.busy = false
			g.mu.Unlock()
			return len(p), nil
		}
		g.mu.Unlock()
		var n int
		n, err = g.w.Write(b.buf)
		b.finish(n, err)
	}
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	b := g.open
	g.open = nil
	g.busy = false
	g.mu.Unlock()
	if b != nil {
		b.finish(0, err)
	}
	if ok {
		return len(p), nil
	}
	return 0, err
}

// finish tells the goroutines of b how its write went: n of its bytes went
// out (those of the messages ahead of it in the write taken away).
func (b *batch) finish(n int, err error) {
	b.n, b.err = n, err
	close(b.done)
}
