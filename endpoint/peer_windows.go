package endpoint

import (
	"fmt"
	"net"

	"golang.org/x/sys/windows"

	"github.com/webmcp-bridge/bridge/internal/winacl"
)

// CheckPeer refuses a connection whose other end is a process of another
// user: the pipe's client process (GetNamedPipeClientProcessId) on the
// host's end, its server process (GetNamedPipeServerProcessId) on the
// shim's, and the user SID of that process's token. A process whose owner
// cannot be read counts as another user's. On the shim's end it also
// refuses a pipe that is not the user's alone (its owner another, or an
// access list that lets others in, as a pipe created first by someone
// else would be): a host's pipe never is. The host runs it on every shim
// that connects, and the shim on every host it dials, before sending
// anything. It returns the process id of the other end as the system
// recorded it.
func CheckPeer(c net.Conn) (peer int, err error) {
	fc, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return 0, fmt.Errorf("not a named pipe connection (%T)", c)
	}
	h := windows.Handle(fc.Fd())
	var flags, pid uint32
	if err := windows.GetNamedPipeInfo(h, &flags, nil, nil, nil); err != nil {
		return 0, fmt.Errorf("cannot read the pipe's ends: %w", err)
	}
	side, get := "server", windows.GetNamedPipeServerProcessId
	if flags&windows.PIPE_SERVER_END != 0 {
		side, get = "client", windows.GetNamedPipeClientProcessId
	}
	if err := get(h, &pid); err != nil {
		return 0, fmt.Errorf("cannot read the pipe's %s process: %w", side, err)
	}
	mine, err := userSID()
	if err != nil {
		return 0, err
	}
	theirs, err := processSID(pid)
	if err != nil {
		return 0, fmt.Errorf("the peer, process %d, may not be yours: its user cannot be read (%v): %w", pid, err, ErrUntrusted)
	}
	if !windows.EqualSid(theirs, mine) {
		return 0, fmt.Errorf("the peer, process %d of user %s, is not of your user %s: %w", pid, theirs, mine, ErrUntrusted)
	}
	if side == "server" {
		// A host's pipe is the user's and lets in the user alone (see
		// Listen): one that lets in others was not made by a host.
		sd, err := winacl.OfHandle(h)
		if err != nil {
			return 0, fmt.Errorf("the pipe of process %d may not be a host's: its owner and access list cannot be read (%v): %w", pid, err, ErrUntrusted)
		}
		if err := winacl.Check(sd, mine, winacl.UserOnly); err != nil {
			return 0, fmt.Errorf("the pipe of process %d %v, so it is no host's pipe and is %w", pid, err, ErrUntrusted)
		}
	}
	return int(pid), nil
}
