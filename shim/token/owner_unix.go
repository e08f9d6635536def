//go:build !windows

package token

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkPrivate refuses the token file at path (fi, from Lstat) when others
// may read it (its mode) or it is not the user's.
func checkPrivate(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the HTTP token %s may be read by others (mode %v): anyone who read it can use your browser's tools; run webmcp-shim token --new to make a new one", path, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the HTTP token %s: it belongs to user id %d, not to you (%d); remove it and run webmcp-shim token --new", path, st.Uid, os.Getuid())
	}
	return nil
}

// createPrivate creates a new file in dir, mode 0600, for the token.
func createPrivate(dir string) (*os.File, error) {
	return os.CreateTemp(dir, FileName+".*")
}
