//go:build linux

package endpoint

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// CheckPeer refuses a connection from a process of another user, by the
// credentials the kernel recorded for the peer (SO_PEERCRED), and returns
// the peer's process id as the kernel recorded it. The host runs it on
// every shim that connects, and the shim on every host it dials.
func CheckPeer(c net.Conn) (pid int, err error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("not a Unix socket connection (%T)", c)
	}
	cred, err := peerCred(uc)
	if err != nil {
		return 0, fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	if uid := os.Getuid(); int(cred.Uid) != uid {
		return 0, fmt.Errorf("the peer, process %d of uid %d, is not of your uid %d: %w", cred.Pid, cred.Uid, uid, ErrUntrusted)
	}
	return int(cred.Pid), nil
}

// peerCred reads SO_PEERCRED of c.
func peerCred(c *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, cerr
}
