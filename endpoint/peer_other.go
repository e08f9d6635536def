//go:build !linux && !darwin && !freebsd && !windows

package endpoint

import "net"

// CheckPeer accepts every connection: where this package cannot read the
// peer's credentials, the private runtime directory (0700) and socket
// (0600) keep other users out. The peer's pid is unknown there: 0.
func CheckPeer(net.Conn) (pid int, err error) { return 0, nil }
