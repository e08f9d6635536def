package endpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RuntimeDirEnv overrides the runtime directory.
const RuntimeDirEnv = "WEBMCP_RUNTIME_DIR"

// SocketPattern matches the host sockets in the runtime directory.
const SocketPattern = "host-*" + endpointExt

// ErrUntrusted is wrapped by the errors of [CheckRuntimeDir],
// [EnsureRuntimeDir] and [CheckSocket] when the directory or a socket in it
// is not the user's alone: owned by another user, a symbolic link, or open
// to group or others. Such a directory may be another local user's attempt
// to stand in for the user's browser; nothing in it is used.
var ErrUntrusted = errors.New("not private to you")

// RuntimeDir returns the directory where hosts put their sockets:
// $WEBMCP_RUNTIME_DIR if set, else $XDG_RUNTIME_DIR/webmcp, else
// webmcp-bridge/run in the user's cache directory (~/.cache on Linux,
// ~/Library/Caches on macOS): a place under the user's own HOME that no
// other user can create first. It does not create it.
//
// Only when neither HOME nor a cache directory is known does it fall back to
// webmcp-<uid> in the temporary directory; another user can create that
// name first, which [EnsureRuntimeDir] and [CheckRuntimeDir] then refuse.
func RuntimeDir() string {
	if d := os.Getenv(RuntimeDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "webmcp")
	}
	if d, err := os.UserCacheDir(); err == nil && filepath.IsAbs(d) {
		return filepath.Join(d, "webmcp-bridge", "run")
	}
	return filepath.Join(os.TempDir(), "webmcp-"+strconv.Itoa(os.Getuid()))
}

// EnsureRuntimeDir creates dir with mode 0700 if it does not exist (and its
// missing parents, also 0700), then checks it as [CheckRuntimeDir] does. It
// never follows a symbolic link at dir and never changes the mode of a
// directory that was there: one that is not private is refused, with the
// fix in the error.
func EnsureRuntimeDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create the parent of the runtime directory %s: %w", dir, err)
	}
	// Mkdir does not follow a symbolic link at dir: it fails with "exists".
	if err := mkdirPrivate(dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create runtime directory %s: %w", dir, err)
	}
	return CheckRuntimeDir(dir)
}

// CheckRuntimeDir checks, without following symbolic links, that dir is a
// directory that the user owns and that no one else may enter, in a parent
// that others cannot rename it out of. A dir that does not exist gives an
// error wrapping fs.ErrNotExist; one that is not private wraps
// [ErrUntrusted]. Every side runs it before it trusts a socket in dir.
func CheckRuntimeDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("runtime directory %s does not exist: %w", dir, fs.ErrNotExist)
		}
		return fmt.Errorf("runtime directory %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return untrusted(dir, "is a symbolic link", "remove it (rm %s) and restart the browser, or set %s to a private directory", dir, RuntimeDirEnv)
	}
	if !fi.IsDir() {
		return untrusted(dir, "is not a directory", "remove it (rm %s) and restart the browser", dir)
	}
	return checkDirPrivate(dir, fi)
}

// CheckSocket checks, without following symbolic links, that path is a
// socket that the user owns. A host socket that fails it is never dialled.
func CheckSocket(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("host socket %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return untrusted(path, "is a symbolic link, not a host's socket", "remove it (rm %s)", path)
	}
	return checkEndpoint(path, fi)
}

// untrusted is an error wrapping ErrUntrusted: what is wrong with path, and
// what to do.
func untrusted(path, what, fix string, args ...any) error {
	return fmt.Errorf("%s %s, so it is %w: %s", path, what, ErrUntrusted, fmt.Sprintf(fix, args...))
}

// HostSockets lists the host sockets in dir.
func HostSockets(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, SocketPattern))
}

// SocketPath is the socket of the host with the given process id.
func SocketPath(dir string, pid int) string {
	return filepath.Join(dir, "host-"+strconv.Itoa(pid)+endpointExt)
}

// SocketPID is the process id in a host socket's name, as [SocketPath]
// writes it; ok is false for any other name.
func SocketPID(path string) (pid int, ok bool) {
	name := filepath.Base(path)
	s, found := strings.CutPrefix(name, "host-")
	if !found {
		return 0, false
	}
	s, found = strings.CutSuffix(s, endpointExt)
	if !found {
		return 0, false
	}
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != s {
		return 0, false
	}
	return pid, true
}
