package host

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/webmcp-bridge/bridge/endpoint"
)

// listen creates the private runtime directory and the host's socket in it,
// readable and writable by its owner only; a directory that is not the
// user's alone is refused (endpoint.EnsureRuntimeDir). A socket file already
// at the host's own path was left by a dead process that had the same pid,
// and is removed; so are other hosts' sockets that nothing listens on any
// more, when no process has their pid (endpoint.RemoveStaleSockets).
func listen(dir string, pid int, log *logger) (net.Listener, error) {
	if err := endpoint.EnsureRuntimeDir(dir); err != nil {
		return nil, err
	}
	path := endpoint.SocketPath(dir, pid)
	if _, err := os.Lstat(path); err == nil {
		if err := endpoint.CheckSocket(path); err != nil {
			return nil, fmt.Errorf("%w; then restart the browser", err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
		}
		log.Printf("removed a stale socket left at %s by an earlier process", path)
	}
	ln, err := endpoint.Listen(path)
	if err != nil {
		return nil, err
	}
	removed, err := endpoint.RemoveStaleSockets(context.Background(), dir, path)
	for _, p := range removed {
		log.Printf("removed the socket %s of a host that is gone", p)
	}
	if err != nil {
		log.Printf("%v", err)
	}
	return ln, nil
}
