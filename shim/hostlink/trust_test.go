package hostlink

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/intruder"
	"github.com/webmcp-bridge/bridge/protocol"
)

// scanOnce runs one Scan of dir and returns its errors and the connections
// it made.
func scanOnce(t *testing.T, dir string) ([]error, []*Conn) {
	t.Helper()
	p := NewPool(PoolOptions{Dir: dir, Client: protocol.ClientInfo{Name: "test"}})
	t.Cleanup(p.Close)
	errs := p.Scan(t.Context())
	return errs, p.Conns()
}

func wantUntrusted(t *testing.T, what string, errs []error, conns []*Conn) {
	t.Helper()
	if len(conns) != 0 {
		t.Errorf("%s: connected to %d hosts, want none", what, len(conns))
	}
	if len(errs) != 1 || !errors.Is(errs[0], endpoint.ErrUntrusted) {
		t.Errorf("%s: Scan errors %v, want one wrapping ErrUntrusted", what, errs)
	}
}

// TestIntruderRuntimeDir: another user created the runtime directory first
// (as they could with the old default in the shared temporary directory)
// and serves a host in it. The shim sends it nothing.
func TestIntruderRuntimeDir(t *testing.T) {
	other := intruder.Need(t)
	dir := other.Dir(t, "run", 0o755)
	evil := other.Serve(t, filepath.Join(dir, "host-1.sock"))

	errs, conns := scanOnce(t, dir)
	wantUntrusted(t, "a runtime directory of "+other.Name, errs, conns)
	if !strings.Contains(errs[0].Error(), "owned by uid") {
		t.Errorf("the error does not name the owner: %v", errs[0])
	}
	if b, n := evil.Received(t); n != 0 || b != 0 {
		t.Errorf("%v: %d connections, %d bytes from the shim; want none", evil, n, b)
	}
}

// TestIntruderSymlinkedRuntimeDir: the runtime directory's path is a
// symbolic link another user planted, to a directory of theirs.
func TestIntruderSymlinkedRuntimeDir(t *testing.T) {
	other := intruder.Need(t)
	theirs := other.Dir(t, "run", 0o700)
	evil := other.Serve(t, filepath.Join(theirs, "host-1.sock"))
	link := filepath.Join(t.TempDir(), "run")
	if err := os.Symlink(theirs, link); err != nil {
		t.Fatal(err)
	}
	errs, conns := scanOnce(t, link)
	wantUntrusted(t, "a symlinked runtime directory", errs, conns)
	if b, n := evil.Received(t); n != 0 || b != 0 {
		t.Errorf("%v: %d connections, %d bytes from the shim; want none", evil, n, b)
	}
}

// TestIntruderSocketMovedIn: the socket file in the user's own directory
// is the user's, but the process listening on it is another user's. Only
// the peer's credentials tell: the shim connects and sends nothing.
func TestIntruderSocketMovedIn(t *testing.T) {
	other := intruder.Need(t)
	theirs := other.Dir(t, "run", 0o755)
	evil := other.Serve(t, filepath.Join(theirs, "host-1.sock"))
	dir := t.TempDir()
	moved := filepath.Join(dir, "host-1.sock")
	if err := os.Rename(evil.Socket, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(moved, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	evil.Socket = moved

	errs, conns := scanOnce(t, dir)
	wantUntrusted(t, "a socket served by "+other.Name, errs, conns)
	if b, _ := evil.Received(t); b != 0 {
		t.Errorf("%v: received %d bytes from the shim, want none (not even the hello)", evil, b)
	}
}

// TestStaleSocketRemoved: a socket left by a host that crashed is removed
// by the first shim that finds nothing listening and its process gone.
func TestStaleSocketRemoved(t *testing.T) {
	dir := bridgetest.RuntimeDir(t)
	stale := intruder.Abandon(t, dir)

	errs, conns := scanOnce(t, dir)
	if len(errs) != 0 || len(conns) != 0 {
		t.Errorf("Scan: errors %v, %d connections; want neither", errs, len(conns))
	}
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there (%v)", err)
	}
}
