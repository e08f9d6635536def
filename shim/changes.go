package shim

import "sync"

// broadcast wakes every waiter once per change: wait returns a channel that
// is closed at the next signal.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed by the next signal.
func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

// signal wakes the current waiters.
func (b *broadcast) signal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
}
