//go:build unix

package intruder

import (
	"net"
	"os/exec"
	"syscall"
	"testing"
)

// runAs makes cmd run as u.
func runAs(cmd *exec.Cmd, u User) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
}

// supported says whether this package can act as another user here.
func supported() error { return nil }

// endpointExt ends a host endpoint's name (endpoint.SocketPath).
const endpointExt = ".sock"

// deadPID is the pid of a process that has ended.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// AbandonAt leaves a socket at path that nothing listens on, as a crashed
// host does.
func AbandonAt(t testing.TB, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}
