package host

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/intruder"
)

// TestListenRefusesARuntimeDirNotPrivate: a symbolic link at the runtime
// directory's path, or a directory open to others, is refused; the host
// neither follows the link nor changes any mode.
func TestListenRefusesARuntimeDirNotPrivate(t *testing.T) {
	bridgetest.UnixOnly(t, "symbolic links and modes of the runtime directory (webmcp: TestRuntimeDirOpenToOthers)")
	base := t.TempDir()
	target := filepath.Join(base, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, target} {
		ln, err := listen(dir, 4242, newLogger(nil, false))
		if err == nil {
			ln.Close()
		}
		if !errors.Is(err, endpoint.ErrUntrusted) {
			t.Errorf("listen in %s: %v, want ErrUntrusted", filepath.Base(dir), err)
		}
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target now has mode %v: the host changed it", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("the host put %v in the link's target", entries)
	}
}

// TestListenRefusesARuntimeDirOfAnotherUser: the runtime directory was
// created by another local user first.
func TestListenRefusesARuntimeDirOfAnotherUser(t *testing.T) {
	other := intruder.Need(t)
	dir := other.Dir(t, "run", 0o777)
	ln, err := listen(dir, 4242, newLogger(nil, false))
	if err == nil {
		ln.Close()
	}
	if !errors.Is(err, endpoint.ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid") {
		t.Errorf("listen in a directory of %s: %v, want ErrUntrusted naming the owner", other.Name, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the host put %v in it", entries)
	}
}

// TestListenRemovesSocketsOfHostsThatAreGone: a host that starts removes
// the sockets that crashed hosts left, and keeps those of live hosts.
func TestListenRemovesSocketsOfHostsThatAreGone(t *testing.T) {
	bridgetest.UnixOnly(t, "Unix sockets left by dead hosts (webmcp: TestRemoveStaleEndpoints)")
	dir := filepath.Join(t.TempDir(), "run")
	if err := endpoint.EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	stale := []string{intruder.Abandon(t, dir), intruder.Abandon(t, dir)}
	live, err := net.Listen("unix", endpoint.SocketPath(dir, os.Getppid()))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	var log bytes.Buffer
	ln, err := listen(dir, 4242, newLogger(&log, false))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	left, _ := endpoint.HostSockets(dir)
	want := []string{endpoint.SocketPath(dir, 4242), endpoint.SocketPath(dir, os.Getppid())}
	if !sameSet(left, want) {
		t.Errorf("sockets left: %v, want %v", left, want)
	}
	for _, s := range stale {
		if !strings.Contains(log.String(), "removed the socket "+s) {
			t.Errorf("the log does not say %s was removed:\n%s", s, log.String())
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, s := range a {
		seen[s] = true
	}
	for _, s := range b {
		if !seen[s] {
			return false
		}
	}
	return true
}
