//go:build !windows

package endpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkDirPrivate checks that the directory dir (fi, from Lstat) is the
// user's and that no one else may enter it, in a parent that others cannot
// rename it out of.
func checkDirPrivate(dir string, fi os.FileInfo) error {
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return untrusted(dir, fmt.Sprintf("is owned by uid %d, not by you (uid %d)", uid, os.Getuid()),
			"another local user may be trying to stand in for your browser; have it removed (as root: rm -r %s), or set %s (or XDG_RUNTIME_DIR) to a private directory for the browser and your agents alike", dir, RuntimeDirEnv)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return untrusted(dir, fmt.Sprintf("is open to other users (mode %v)", perm),
			"check that no socket in it is someone else's, then chmod 700 %s and restart the browser", dir)
	}
	// A parent that anyone may write to, without the sticky bit (which
	// /tmp has), lets anyone rename dir away and put their own in its place.
	parent := filepath.Dir(dir)
	if pfi, err := os.Stat(parent); err == nil && pfi.Mode().Perm()&0o002 != 0 && pfi.Mode()&fs.ModeSticky == 0 {
		return untrusted(dir, fmt.Sprintf("is in %s, which every user may write to (mode %v)", parent, pfi.Mode().Perm()),
			"set %s to a directory in a private place, e.g. under your HOME", RuntimeDirEnv)
	}
	return nil
}

// checkEndpoint checks that path (fi, from Lstat) is a socket that the user
// owns.
func checkEndpoint(path string, fi os.FileInfo) error {
	if fi.Mode()&fs.ModeSocket == 0 {
		return untrusted(path, "is not a socket", "remove it (rm %s)", path)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return untrusted(path, fmt.Sprintf("is owned by uid %d, not by you (uid %d)", uid, os.Getuid()),
			"another local user may be trying to stand in for your browser; have it removed (as root: rm %s)", path)
	}
	return nil
}

// mkdirPrivate creates the directory dir, mode 0700.
func mkdirPrivate(dir string) error { return os.Mkdir(dir, 0o700) }
