//go:build unix

package host

import (
	"errors"
	"net"
	"syscall"
)

// tryWrite returns a function that writes to c what its socket takes at
// once, without waiting, and says how many bytes that was; nil when c has
// no file descriptor to write to.
func tryWrite(c net.Conn) func([]byte) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func(b []byte) int {
		written := 0
		raw.Write(func(fd uintptr) bool {
			for written < len(b) {
				n, err := syscall.Write(int(fd), b[written:])
				if n > 0 {
					written += n
				}
				if errors.Is(err, syscall.EINTR) {
					continue
				}
				if err != nil || n <= 0 {
					break // full (EAGAIN) or failing: the writer goroutine takes the rest
				}
			}
			return true // one attempt: never wait for the socket here
		})
		return written
	}
}
