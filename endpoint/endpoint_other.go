//go:build !windows

package endpoint

import (
	"context"
	"fmt"
	"net"
	"os"
)

// endpointExt ends the name of a host's endpoint in the runtime directory:
// on Unix the endpoint is the host's socket itself.
const endpointExt = ".sock"

// EndpointNoun names a host's endpoint in messages.
const EndpointNoun = "host socket"

// Listen listens on a new Unix socket at path, readable and writable by its
// owner only. Closing the listener removes the socket.
func Listen(path string) (net.Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The directory is private already; the socket is made private too.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("make the socket %s private: %w", path, err)
	}
	return ln, nil
}

// Dial connects to the host socket at path. It checks nothing: callers run
// [CheckSocket] before and [CheckPeer] after.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
