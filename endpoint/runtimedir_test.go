//go:build unix

package endpoint

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/intruder"
)

func TestRuntimeDirDefault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(RuntimeDirEnv, "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	got := RuntimeDir()
	want := filepath.Join(home, ".cache", "webmcp-bridge", "run")
	if runtime.GOOS == "darwin" {
		want = filepath.Join(home, "Library", "Caches", "webmcp-bridge", "run")
	}
	if got != want {
		t.Errorf("RuntimeDir() = %s without XDG_RUNTIME_DIR, want %s (under HOME, where no other user can create it first)", got, want)
	}

	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got, want := RuntimeDir(), "/run/user/1000/webmcp"; got != want {
		t.Errorf("RuntimeDir() = %s, want %s", got, want)
	}
	t.Setenv(RuntimeDirEnv, "/elsewhere")
	if got, want := RuntimeDir(), "/elsewhere"; got != want {
		t.Errorf("RuntimeDir() = %s, want %s", got, want)
	}
}

func TestEnsureRuntimeDirCreatesAPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "run")
	for range 2 {
		if err := EnsureRuntimeDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, want a directory of mode 0700", dir, fi.Mode())
	}
}

func TestRuntimeDirNotPrivateIsRefused(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	mkdir(t, open, 0o755)
	target := filepath.Join(base, "target")
	mkdir(t, target, 0o750)
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(base, "shared")
	mkdir(t, shared, 0o777) // others may write, no sticky bit
	inShared := filepath.Join(shared, "run")
	mkdir(t, inShared, 0o700)

	for _, c := range []struct{ dir, want string }{
		{open, "open to other users"},
		{link, "symbolic link"},
		{file, "not a directory"},
		{inShared, "every user may write to"},
	} {
		for name, f := range map[string]func(string) error{"Ensure": EnsureRuntimeDir, "Check": CheckRuntimeDir} {
			err := f(c.dir)
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%sRuntimeDir(%s) = %v, want ErrUntrusted saying %q", name, filepath.Base(c.dir), err, c.want)
			}
		}
	}
	// Nothing was changed to make them fit.
	for path, mode := range map[string]os.FileMode{open: 0o755, target: 0o750} {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v after the checks, want %v left as it was", filepath.Base(path), fi.Mode().Perm(), mode)
		}
	}

	// /tmp-like: writable by all but sticky is fine.
	sticky := filepath.Join(base, "sticky")
	mkdir(t, sticky, 0o777|fs.ModeSticky)
	if err := EnsureRuntimeDir(filepath.Join(sticky, "run")); err != nil {
		t.Errorf("a private directory in a sticky shared one: %v", err)
	}
	if err := CheckRuntimeDir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckRuntimeDir(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestRuntimeDirOfAnotherUserIsRefused is the attack of a local user who
// creates the runtime directory, or a socket in it, before the victim.
func TestRuntimeDirOfAnotherUserIsRefused(t *testing.T) {
	other := intruder.Need(t)
	dir := other.Dir(t, "run", 0o700)
	for name, f := range map[string]func(string) error{"Ensure": EnsureRuntimeDir, "Check": CheckRuntimeDir} {
		err := f(dir)
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid") {
			t.Errorf("%sRuntimeDir(a directory of %s) = %v, want ErrUntrusted naming the owner", name, other.Name, err)
		}
	}

	own := t.TempDir()
	sock := listenUnix(t, filepath.Join(own, "host-1.sock"))
	if err := CheckSocket(sock); err != nil {
		t.Errorf("CheckSocket(own socket) = %v", err)
	}
	other.Chown(t, sock)
	if err := CheckSocket(sock); !errors.Is(err, ErrUntrusted) {
		t.Errorf("CheckSocket(socket of %s) = %v, want ErrUntrusted", other.Name, err)
	}
}

func TestCheckSocket(t *testing.T) {
	dir := t.TempDir()
	sock := listenUnix(t, filepath.Join(dir, "host-1.sock"))
	link := filepath.Join(dir, "host-2.sock")
	if err := os.Symlink(sock, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "host-3.sock")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocket(sock); err != nil {
		t.Errorf("CheckSocket(socket) = %v", err)
	}
	for _, p := range []string{link, file} {
		if err := CheckSocket(p); !errors.Is(err, ErrUntrusted) {
			t.Errorf("CheckSocket(%s) = %v, want ErrUntrusted", filepath.Base(p), err)
		}
	}
}

func TestSocketPID(t *testing.T) {
	for name, want := range map[string]int{"host-42.sock": 42, "/x/host-7.sock": 7, "host-.sock": 0, "host-042.sock": 0, "host--1.sock": 0, "other-1.sock": 0, "host-1.sock.bak": 0} {
		pid, ok := SocketPID(name)
		if pid != want || ok != (want > 0) {
			t.Errorf("SocketPID(%q) = %d, %v; want %d", name, pid, ok, want)
		}
	}
	if got, _ := SocketPID(SocketPath("/d", 4242)); got != 4242 {
		t.Errorf("SocketPID(SocketPath(4242)) = %d", got)
	}
}

// TestRemoveStaleSockets: a socket nobody listens on, named after a process
// that is gone, is removed; one named after a live process, or one that
// answers, stays.
func TestRemoveStaleSockets(t *testing.T) {
	dir := t.TempDir()
	stale := intruder.Abandon(t, dir)
	gone, _ := SocketPID(stale)
	alivePID := SocketPath(dir, os.Getpid())
	abandonAt(t, alivePID)
	live := listenUnix(t, SocketPath(dir, gone+1))

	removed, err := RemoveStaleSockets(t.Context(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != stale {
		t.Errorf("removed %v, want only %s", removed, stale)
	}
	for _, p := range []string{alivePID, live} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v, want it kept", filepath.Base(p), err)
		}
	}
	if _, err := os.Lstat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still there", stale)
	}
}

func mkdir(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// listenUnix listens on a Unix socket at path until t ends.
func listenUnix(t *testing.T, path string) string {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return path
}

// abandonAt leaves a socket file at path that nothing listens on.
func abandonAt(t *testing.T, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}
