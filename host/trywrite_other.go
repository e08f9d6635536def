//go:build !unix

package host

import "net"

// tryWrite is nil where the host does not write to a shim's connection
// itself (Windows named pipes): every line goes through the writer
// goroutine.
func tryWrite(net.Conn) func([]byte) int { return nil }
