//go:build unix

package endpoint

import (
	"errors"
	"os"
	"syscall"
)

// fileOwner is the uid that owns fi; ok is false where the system does not
// say.
func fileOwner(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// processGone reports whether no process has the given pid. A process of
// another user (EPERM) exists.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// refused reports whether err is a refused connection: nothing listens on
// the socket.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
