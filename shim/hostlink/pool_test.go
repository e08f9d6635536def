package hostlink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/intruder"
	"github.com/webmcp-bridge/bridge/protocol"
)

func TestPoolFollowsSockets(t *testing.T) {
	dir := filepath.Join(bridgetest.RuntimeDir(t), "run") // does not exist yet
	changes := make(chan *Conn, 10)
	closes := make(chan error, 10)
	pool := NewPool(PoolOptions{
		Dir: dir, Client: protocol.ClientInfo{Name: "test-shim"}, Logger: quiet, Interval: 10 * time.Millisecond,
		OnChange: func(c *Conn) { changes <- c },
		OnClose:  func(_ *Conn, err error) { closes <- err },
	})
	ctx, cancel := context.WithCancel(bridgetest.Context(t))
	watched := make(chan struct{})
	go func() {
		pool.Watch(ctx)
		close(watched)
	}()
	defer func() { cancel(); <-watched }()

	if err := endpoint.EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	path := endpoint.SocketPath(dir, 1)
	h := bridgetest.Listen(t, path)
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s1", nil)
	for c := range changes {
		if c.Path() != path {
			t.Fatalf("change from %s", c.Path())
		}
		if c.Session() == "s1" {
			break
		}
	}
	// The pool lists a connection once Dial has returned, which can be just
	// after the host's first messages ran OnChange; no event marks it, so
	// look again until the hang guard.
	for conns := pool.Conns(); len(conns) != 1 || conns[0].Path() != path; conns = pool.Conns() {
		select {
		case <-ctx.Done():
			t.Fatalf("Conns = %v", conns)
		case <-time.After(time.Millisecond):
		}
	}

	// The socket file goes while the connection stays open: the pool drops
	// the connection.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closes:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("OnClose got %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the pool kept a connection whose socket vanished")
	}
	if conns := pool.Conns(); len(conns) != 0 {
		t.Fatalf("Conns after the socket went = %v", conns)
	}
}

func TestPoolStaleSocket(t *testing.T) {
	dir := bridgetest.RuntimeDir(t)
	// A socket that nothing listens on, named after a live process.
	intruder.AbandonAt(t, endpoint.SocketPath(dir, os.Getpid()))

	pool := NewPool(PoolOptions{Dir: dir, Client: protocol.ClientInfo{Name: "test-shim"}, Logger: quiet})
	defer pool.Close()
	if errs := pool.Scan(bridgetest.Context(t)); len(errs) != 1 {
		t.Fatalf("first scan: %v, want one error", errs)
	}
	// It is not dialled again at once (nor logged at every scan).
	if errs := pool.Scan(bridgetest.Context(t)); len(errs) != 0 {
		t.Fatalf("second scan: %v, want none", errs)
	}
	// A new host replaces the socket: it is tried at once.
	os.Remove(endpoint.SocketPath(dir, os.Getpid()))
	h := bridgetest.Listen(t, endpoint.SocketPath(dir, os.Getpid()))
	if errs := pool.Scan(bridgetest.Context(t)); len(errs) != 0 {
		t.Fatalf("scan after the socket was replaced: %v", errs)
	}
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s1", nil)
	if errs := pool.WaitReady(bridgetest.Context(t), 5*time.Second); len(errs) != 0 {
		t.Fatalf("WaitReady: %v", errs)
	}
	if len(pool.Conns()) != 1 {
		t.Fatalf("Conns = %v", pool.Conns())
	}
}

func TestPoolWaitReadyNamesTheMuteHost(t *testing.T) {
	dir := bridgetest.RuntimeDir(t)
	path := endpoint.SocketPath(dir, 3)
	h := bridgetest.Listen(t, path)
	pool := NewPool(PoolOptions{Dir: dir, Client: protocol.ClientInfo{Name: "test-shim"}, Logger: quiet})
	defer pool.Close()
	if errs := pool.Scan(bridgetest.Context(t)); len(errs) != 0 {
		t.Fatal(errs)
	}
	h.Accept(bridgetest.Context(t)) // and never answer
	errs := pool.WaitReady(bridgetest.Context(t), 50*time.Millisecond)
	if len(errs) != 1 || !contains(errs[0].Error(), path, "did not send its state within 50ms") {
		t.Fatalf("WaitReady = %v", errs)
	}
	if len(pool.Conns()) != 0 {
		t.Errorf("the mute host's connection was kept")
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestPoolScanned(t *testing.T) {
	pool := NewPool(PoolOptions{Dir: bridgetest.RuntimeDir(t), Client: protocol.ClientInfo{Name: "test-shim"}, Logger: quiet})
	defer pool.Close()
	select {
	case <-pool.Scanned():
		t.Fatal("Scanned is closed before any scan")
	default:
	}
	pool.Scan(bridgetest.Context(t))
	select {
	case <-pool.Scanned():
	default:
		t.Fatal("Scanned is not closed after a scan")
	}
	pool.Scan(bridgetest.Context(t)) // closing it again must not panic
}
