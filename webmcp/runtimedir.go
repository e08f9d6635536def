package webmcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// RuntimeDirEnv overrides the runtime directory.
const RuntimeDirEnv = "WEBMCP_RUNTIME_DIR"

// SocketPattern matches the host sockets in the runtime directory.
const SocketPattern = "host-*.sock"

// RuntimeDir returns the directory where hosts put their sockets:
// $WEBMCP_RUNTIME_DIR if set, else $XDG_RUNTIME_DIR/webmcp, else
// webmcp-<uid> in the temporary directory. It does not create it.
func RuntimeDir() string {
	if d := os.Getenv(RuntimeDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "webmcp")
	}
	return filepath.Join(os.TempDir(), "webmcp-"+strconv.Itoa(os.Getuid()))
}

// EnsureRuntimeDir creates dir with mode 0700 if it does not exist, and
// refuses a dir that another user owns or that others may enter.
func EnsureRuntimeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create runtime directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("runtime directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("runtime directory %s is not a directory", dir)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("runtime directory %s: %w", dir, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("runtime directory %s is open to other users (%v) and could not be made private: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// HostSockets lists the host sockets in dir.
func HostSockets(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, SocketPattern))
}

// SocketPath is the socket of the host with the given process id.
func SocketPath(dir string, pid int) string {
	return filepath.Join(dir, "host-"+strconv.Itoa(pid)+".sock")
}
