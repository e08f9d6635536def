//go:build unix

package installer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// startAs starts bin (a copy of sleep) as the given user (-1: this one).
func startAs(t *testing.T, uid int, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // a second Wait returns at once
	return cmd
}

// endSignal kills cmd and returns the signal that ended it: SIGTERM when it
// had been sent one before (SIGTERM ends sleep at once: the kernel marks the
// process dead as it sends it), else our SIGKILL.
func endSignal(t *testing.T, cmd *exec.Cmd) syscall.Signal {
	t.Helper()
	cmd.Process.Kill()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// TestUninstallStopsShims: the user's shims that run the installed binary
// are stopped and named by pid, as its hosts are.
func TestUninstallStopsShims(t *testing.T) {
	fakeHome(t)
	prefix, record := fakeInstall(t)
	shim := startAs(t, -1, filepath.Join(prefix, "bin", "webmcp-shim"), "1000")
	host := startAs(t, -1, filepath.Join(prefix, "bin", "webmcp-host"), "1000")
	_, out, _ := runUninstall(t, record)
	for _, c := range []struct {
		cmd  *exec.Cmd
		name string
	}{{shim, "webmcp-shim"}, {host, "webmcp-host"}} {
		if !strings.Contains(oneLine(out), "stopped "+c.name+" (pid "+strconv.Itoa(c.cmd.Process.Pid)) {
			t.Errorf("uninstall did not name %s pid %d", c.name, c.cmd.Process.Pid)
		}
		if sig := endSignal(t, c.cmd); sig != syscall.SIGTERM {
			t.Errorf("%s ended by signal %v, want SIGTERM", c.name, sig)
		}
	}
}

// TestUninstallLeavesOtherUsers: a host of the same path run by another
// user is neither signalled nor named (root's uninstall).
func TestUninstallLeavesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		bridgetest.SkipOutsideCI(t, "starting a process as another user needs root")
	}
	fakeHome(t)
	prefix, record := fakeInstall(t)
	bin := filepath.Join(prefix, "bin", "webmcp-host")
	theirs := startAs(t, 65534, bin, "1000")
	mine := startAs(t, -1, bin, "1000")
	// The owner check: /proc tells the other user's process apart.
	for _, p := range linuxProcesses("/proc") {
		if p.pid == theirs.Process.Pid && (p.uid != 65534 || p.mine()) {
			t.Errorf("process of uid 65534 read as uid %d/%d, mine %v", p.uid, p.euid, p.mine())
		}
		if p.pid == mine.Process.Pid && !p.mine() {
			t.Errorf("own process read as uid %d/%d, not mine", p.uid, p.euid)
		}
	}
	_, out, _ := runUninstall(t, record)
	if sig := endSignal(t, mine); sig != syscall.SIGTERM {
		t.Errorf("own host ended by %v, want SIGTERM", sig)
	}
	if strings.Contains(out, "pid "+strconv.Itoa(theirs.Process.Pid)) {
		t.Errorf("uninstall names the other user's host")
	}
	if sig := endSignal(t, theirs); sig != syscall.SIGKILL {
		t.Errorf("the other user's host ended by %v, want our SIGKILL: the uninstall signalled it", sig)
	}
}
