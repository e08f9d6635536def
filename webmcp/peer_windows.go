package webmcp

import (
	"fmt"
	"net"

	"golang.org/x/sys/windows"
)

// CheckPeer refuses a connection whose other end is a process of another
// user: the pipe's client process (GetNamedPipeClientProcessId) on the
// host's end, its server process (GetNamedPipeServerProcessId) on the
// shim's, and the user SID of that process's token. A process whose owner
// cannot be read counts as another user's. The host runs it on every shim
// that connects, and the shim on every host it dials, before sending
// anything.
func CheckPeer(c net.Conn) error {
	fc, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return fmt.Errorf("not a named pipe connection (%T)", c)
	}
	h := windows.Handle(fc.Fd())
	var flags, pid uint32
	if err := windows.GetNamedPipeInfo(h, &flags, nil, nil, nil); err != nil {
		return fmt.Errorf("cannot read the pipe's ends: %w", err)
	}
	side, get := "server", windows.GetNamedPipeServerProcessId
	if flags&windows.PIPE_SERVER_END != 0 {
		side, get = "client", windows.GetNamedPipeClientProcessId
	}
	if err := get(h, &pid); err != nil {
		return fmt.Errorf("cannot read the pipe's %s process: %w", side, err)
	}
	mine, err := userSID()
	if err != nil {
		return err
	}
	theirs, err := processSID(pid)
	if err != nil {
		return fmt.Errorf("the peer, process %d, may not be yours: its user cannot be read (%v): %w", pid, err, ErrUntrusted)
	}
	if !windows.EqualSid(theirs, mine) {
		return fmt.Errorf("the peer, process %d of user %s, is not of your user %s: %w", pid, theirs, mine, ErrUntrusted)
	}
	return nil
}
