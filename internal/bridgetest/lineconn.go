package bridgetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/protocol"
)

// LineConn is one end of a bridge socket link, where each message is one
// line of JSON: a test plays a shim against a host with it, or a host
// against a shim. It reads in the background, so that a test waits for the
// next message with a context instead of a deadline.
type LineConn struct {
	t    testing.TB
	conn net.Conn

	mu      sync.Mutex
	lines   [][]byte
	err     error         // why reading stopped
	changed chan struct{} // closed and replaced when lines or err change
}

// NewLineConn starts reading c; c is closed when the test ends.
func NewLineConn(t testing.TB, c net.Conn) *LineConn {
	l := &LineConn{t: t, conn: c, changed: make(chan struct{})}
	t.Cleanup(func() { c.Close() })
	go l.readLoop()
	return l
}

// DialLine connects to the host endpoint at path (a Unix socket, or on
// Windows the file naming a named pipe).
func DialLine(t testing.TB, path string) *LineConn {
	t.Helper()
	c, err := endpoint.Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return NewLineConn(t, c)
}

// Conn is the underlying connection.
func (l *LineConn) Conn() net.Conn { return l.conn }

// Close closes the connection.
func (l *LineConn) Close() error { return l.conn.Close() }

func (l *LineConn) readLoop() {
	r := bufio.NewReader(l.conn)
	for {
		line, err := r.ReadBytes('\n')
		l.mu.Lock()
		if err != nil {
			if len(line) > 0 {
				err = fmt.Errorf("a line without a newline at the end (%w): %q", err, line)
			}
			l.err = err
		} else {
			l.lines = append(l.lines, line)
		}
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// NextLine returns the next line, its newline included, or why there is
// none: the reading error after the last line (io.EOF when the peer closed
// the connection), or ctx's.
func (l *LineConn) NextLine(ctx context.Context) ([]byte, error) {
	for {
		l.mu.Lock()
		if len(l.lines) > 0 {
			line := l.lines[0]
			l.lines = l.lines[1:]
			l.mu.Unlock()
			return line, nil
		}
		err, ch := l.err, l.changed
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a message: %w", ctx.Err())
		}
	}
}

// Next returns the next message.
func (l *LineConn) Next(ctx context.Context) (*protocol.Message, error) {
	line, err := l.NextLine(ctx)
	if err != nil {
		return nil, err
	}
	if bytes.Count(line, []byte("\n")) != 1 {
		return nil, fmt.Errorf("not one line: %q", line)
	}
	m := new(protocol.Message)
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("malformed line (%v): %q", err, line)
	}
	return m, nil
}

// Read returns the next line, without its newline, and its message; it
// fails the test if there is none.
func (l *LineConn) Read(ctx context.Context) (string, *protocol.Message) {
	l.t.Helper()
	line, err := l.NextLine(ctx)
	if err != nil {
		l.t.Fatalf("reading a message: %v", err)
	}
	var m protocol.Message
	if err := json.Unmarshal(line, &m); err != nil {
		l.t.Fatalf("the peer sent %q: %v", line, err)
	}
	return strings.TrimSuffix(string(line), "\n"), &m
}

// Expect returns the next message and fails the test unless it has the
// type.
func (l *LineConn) Expect(ctx context.Context, typ string) *protocol.Message {
	l.t.Helper()
	m, err := l.Next(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	if m.Type != typ {
		l.t.Fatalf("got a %q message, want %q: %+v", m.Type, typ, m)
	}
	return m
}

// ExpectEOF fails the test unless the peer closes the connection next.
func (l *LineConn) ExpectEOF(ctx context.Context) {
	l.t.Helper()
	m, err := l.Next(ctx)
	if err == nil {
		l.t.Fatalf("got %+v, want the connection closed", m)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "connection reset") {
		l.t.Fatalf("%v, want the connection closed", err)
	}
}

// Send writes line and a newline.
func (l *LineConn) Send(line string) {
	l.t.Helper()
	if _, err := io.WriteString(l.conn, line+"\n"); err != nil {
		l.t.Fatal(err)
	}
}

// SendMsg writes m as one line.
func (l *LineConn) SendMsg(m *protocol.Message) {
	l.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		l.t.Fatal(err)
	}
	l.Send(string(b))
}

// Listener plays a host's socket: it accepts connections and hands each
// over as a LineConn.
type Listener struct {
	t     testing.TB
	ln    net.Listener
	conns chan net.Conn
}

// Listen listens on a host endpoint at path (a Unix socket, or on Windows a
// named pipe and the file naming it) until the test ends.
func Listen(t testing.TB, path string) *Listener {
	t.Helper()
	ln, err := endpoint.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l := &Listener{t: t, ln: ln, conns: make(chan net.Conn, 4)}
	go func() {
		defer close(l.conns)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.conns <- c
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

// Accept returns the next connection, and fails the test when ctx ends
// first.
func (l *Listener) Accept(ctx context.Context) *LineConn {
	l.t.Helper()
	select {
	case c, ok := <-l.conns:
		if !ok {
			l.t.Fatal("the listener closed")
		}
		return NewLineConn(l.t, c)
	case <-ctx.Done():
		l.t.Fatalf("no connection: %v", ctx.Err())
	}
	return nil
}
