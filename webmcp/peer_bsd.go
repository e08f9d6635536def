//go:build darwin || freebsd

package webmcp

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// CheckPeer refuses a connection from a process of another user, by the
// credentials the kernel recorded for the peer (LOCAL_PEERCRED). The host
// runs it on every shim that connects, and the shim on every host it dials.
func CheckPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection (%T)", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("cannot read the peer's credentials: %w", cerr)
	}
	if uid := os.Getuid(); int(cred.Uid) != uid {
		return fmt.Errorf("the peer, a process of uid %d, is not of your uid %d: %w", cred.Uid, uid, ErrUntrusted)
	}
	return nil
}
