package endpoint

import "golang.org/x/sys/unix"

// peerPID is the process id of a Unix socket's peer as the kernel
// recorded it at connect (LOCAL_PEERPID), 0 if it cannot be read.
func peerPID(fd uintptr) int {
	pid, err := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return 0
	}
	return pid
}
