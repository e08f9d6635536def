//go:build unix

package endpoint

import (
	"net"
	"testing"
)

// abandon leaves an endpoint at path that nothing listens on, as a crashed
// host does, and returns path.
func abandon(t *testing.T, path string) string {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	return path
}
