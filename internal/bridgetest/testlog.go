package bridgetest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Log collects the log of a component under test (a child's stderr, or an
// in-process logger's output): it copies each line to the test log with a
// prefix, keeps the lines so that a test can wait for one, and fails the
// test when a line reports a data race (a -race child prints it there).
// Lines written after the test ended are dropped. It is safe for
// concurrent use.
type Log struct {
	t      testing.TB
	prefix string

	mu      sync.Mutex
	partial []byte // the start of a line not yet ended
	lines   []string
	changed chan struct{} // closed and replaced when lines grows
	done    bool
}

// NewLog returns a Log that prefixes lines with prefix in the test log.
func NewLog(t testing.TB, prefix string) *Log {
	l := &Log{t: t, prefix: prefix, changed: make(chan struct{})}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

// Slog is a logger that writes to l, at debug level and up.
func (l *Log) Slog() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Write takes any part of the log; lines are handled as they end.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return len(p), nil
	}
	l.partial = append(l.partial, p...)
	added := false
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		l.lines = append(l.lines, line)
		added = true
		l.t.Logf("%s: %s", l.prefix, line)
		if strings.Contains(line, "WARNING: DATA RACE") {
			l.t.Errorf("%s reported a data race", l.prefix)
		}
	}
	if added {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return len(p), nil
}

// Await returns the first line that contains every one of subs, waiting
// for it until ctx ends.
func (l *Log) Await(ctx context.Context, subs ...string) (string, error) {
	for i := 0; ; {
		l.mu.Lock()
		for ; i < len(l.lines); i++ {
			if containsAll(l.lines[i], subs) {
				line := l.lines[i]
				l.mu.Unlock()
				return line, nil
			}
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return "", fmt.Errorf("no log line with %q: %w", subs, ctx.Err())
		}
	}
}

// Text is the whole log so far, the lines joined by newlines.
func (l *Log) Text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
