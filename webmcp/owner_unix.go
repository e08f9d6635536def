//go:build unix

package webmcp

import (
	"fmt"
	"os"
	"syscall"
)

func checkOwner(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by you (uid %d): set %s to a private directory", st.Uid, os.Getuid(), RuntimeDirEnv)
	}
	return nil
}
