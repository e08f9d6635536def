package intruder

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// runAs does nothing on Windows: [Need] skips every test before.
func runAs(*exec.Cmd, User) {}

// supported says that acting as another user is not written for Windows.
func supported() error {
	return errors.New("not supported on Windows yet: acting as another local user in tests")
}

// endpointExt ends a host endpoint's name (endpoint.SocketPath).
const endpointExt = ".pipe"

// deadPID is the pid of a process that has ended: a run of this test
// binary that runs no test.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// AbandonAt leaves an endpoint file at path naming a pipe that nothing
// listens on, as a crashed host does.
func AbandonAt(t testing.TB, path string) {
	t.Helper()
	b := make([]byte, 16)
	rand.Read(b)
	name := `\\.\pipe\webmcp-1-` + hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(name+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
