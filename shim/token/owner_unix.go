//go:build unix

package token

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownedByUser says whether the file is the current user's.
func ownedByUser(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("it belongs to user id %d, not to you (%d)", st.Uid, os.Getuid())
	}
	return nil
}

// supported says whether this package can keep the token private here.
func supported() error { return nil }
