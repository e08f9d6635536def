//go:build darwin || freebsd

package endpoint

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// CheckPeer refuses a connection from a process of another user, by the
// credentials the kernel recorded for the peer (LOCAL_PEERCRED), and
// returns the peer's process id as the kernel recorded it (peerPID; 0
// where the system does not say). The host runs it on every shim that
// connects, and the shim on every host it dials.
func CheckPeer(c net.Conn) (pid int, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("not a Unix socket connection (%T)", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			pid = peerPID(fd)
		}
	}); err != nil {
		return 0, fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	if cerr != nil {
		return 0, fmt.Errorf("cannot read the peer's credentials: %w", cerr)
	}
	if uid := os.Getuid(); int(cred.Uid) != uid {
		return 0, fmt.Errorf("the peer, a process of uid %d, is not of your uid %d: %w", cred.Uid, uid, ErrUntrusted)
	}
	return pid, nil
}
