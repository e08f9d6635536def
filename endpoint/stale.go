package endpoint

import (
	"context"
	"fmt"
	"os"
	"time"
)

// staleDialTimeout bounds the dial that tells a live host from a dead one.
const staleDialTimeout = 2 * time.Second

// RemoveIfStale removes the host socket at path when it was left by a host
// that is gone: dialErr (from dialling path) says that nothing listens on
// it, the socket is the user's own ([CheckSocket]), and no process has the
// pid in its name (which rules out a host between creating its socket and
// listening on it). It reports whether it removed the socket.
func RemoveIfStale(path string, dialErr error) (removed bool, err error) {
	if dialErr == nil || !refused(dialErr) {
		return false, nil
	}
	pid, ok := SocketPID(path)
	if !ok || !processGone(pid) {
		return false, nil
	}
	if err := CheckSocket(path); err != nil {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return false, fmt.Errorf("remove the stale host socket %s: %w", path, err)
	}
	return true, nil
}

// RemoveStaleSockets dials every host socket in dir but keep and removes
// those left by hosts that are gone (see [RemoveIfStale]). It returns the
// paths it removed.
func RemoveStaleSockets(ctx context.Context, dir, keep string) (removed []string, err error) {
	paths, err := HostSockets(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if p == keep {
			continue
		}
		// A live process is not dialled: a host would count a session.
		if pid, ok := SocketPID(p); !ok || !processGone(pid) {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, staleDialTimeout)
		c, derr := Dial(dctx, p)
		cancel()
		if derr == nil {
			c.Close()
			continue
		}
		ok, rerr := RemoveIfStale(p, derr)
		if rerr != nil {
			err = rerr
		}
		if ok {
			removed = append(removed, p)
		}
	}
	return removed, err
}
