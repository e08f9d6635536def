package installer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/stopevent"
	"github.com/webmcp-bridge/bridge/internal/winacl"
)

// stopWait bounds how long a process that was asked to stop may take
// before it is ended (TerminateProcess).
var stopWait = 10 * time.Second

// terminatedCode is the exit code of a process ended by TerminateProcess.
const terminatedCode = 1

// stopProcesses stops the user's own processes that run one of the
// binaries paths (with or without .exe, or put aside as .old by an update
// while they ran), and returns them by pid. Windows
// has no SIGTERM: each is asked through its stop event (package stopevent),
// on which a host exits as on SIGTERM (removing its endpoint) and a shim
// ends its session; the wait for it is on its process handle. One that has
// no stop event (a binary from before them) or that has not exited within
// stopWait is ended with TerminateProcess, as the last resort: it removes
// nothing, so the endpoints its hosts left are removed here once they are
// gone. It never touches itself, nor a process of another user (its
// token's user SID is not the user's, or cannot be read).
func stopProcesses(paths []string, stderr io.Writer) []proc {
	if len(paths) == 0 {
		return nil
	}
	me, err := winacl.UserSID()
	if err != nil {
		say(stderr, "webmcp-host uninstall: cannot stop running hosts and shims: %v (close the browser and your agents to stop them)", err)
		return nil
	}
	type target struct {
		p proc
		h windows.Handle
	}
	var targets []target
	for _, pid := range processIDs() {
		if pid == os.Getpid() {
			continue
		}
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
		if err != nil {
			continue // another user's, or gone
		}
		exe, ok := imagePath(h)
		if !ok || !runsOneOf(exe, paths) || !ownedBy(h, me) {
			windows.CloseHandle(h)
			continue
		}
		targets = append(targets, target{proc{pid: pid, exe: exe, uid: -1, euid: -1}, h})
	}
	// Ask each, then wait for all within one bound.
	asked := make([]bool, len(targets))
	for i, t := range targets {
		asked[i] = stopevent.Signal(t.p.pid) == nil
	}
	deadline := time.Now().Add(stopWait)
	var stopped []proc
	terminated := false
	for i, t := range targets {
		exited := false
		if asked[i] {
			left := max(time.Until(deadline), 0)
			ev, _ := windows.WaitForSingleObject(t.h, uint32(left/time.Millisecond))
			exited = ev == windows.WAIT_OBJECT_0
		}
		if !exited {
			if err := windows.TerminateProcess(t.h, terminatedCode); err != nil {
				say(stderr, "webmcp-host uninstall: could not stop %s (pid %d): %v (end it in the Task Manager)", filepath.Base(t.p.exe), t.p.pid, err)
				windows.CloseHandle(t.h)
				continue
			}
			windows.WaitForSingleObject(t.h, windows.INFINITE)
			terminated = true
			why := "it has no stop event (a binary from before them)"
			if asked[i] {
				why = fmt.Sprintf("it did not stop within %v of being asked", stopWait)
			}
			say(stderr, "webmcp-host uninstall: ended %s (pid %d) with TerminateProcess: %s", filepath.Base(t.p.exe), t.p.pid, why)
		}
		windows.CloseHandle(t.h)
		stopped = append(stopped, t.p)
	}
	if terminated {
		// A host ended so leaves its endpoint; its process is gone now.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		endpoint.RemoveStaleSockets(ctx, endpoint.RuntimeDir(), "")
		cancel()
	}
	slices.SortFunc(stopped, func(a, b proc) int { return a.pid - b.pid })
	return stopped
}

// processIDs lists the machine's processes (a toolhelp snapshot).
func processIDs() []int {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	var pids []int
	for err := windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		pids = append(pids, int(e.ProcessID))
	}
	return pids
}

// imagePath is the full path of the executable of the process h.
func imagePath(h windows.Handle) (string, bool) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return "", false
	}
	return windows.UTF16ToString(buf[:n]), true
}

// runsOneOf says whether exe is one of paths, or one of them with .exe,
// or what an update put aside while it ran (.old): Windows paths compare
// without regard to case.
func runsOneOf(exe string, paths []string) bool {
	for _, p := range paths {
		p = filepath.Clean(p)
		for _, name := range []string{p, p + ".exe", p + ".old", p + ".exe.old"} {
			if strings.EqualFold(exe, name) {
				return true
			}
		}
	}
	return false
}

// ownedBy says whether the token of process h has the user SID me.
func ownedBy(h windows.Handle, me *windows.SID) bool {
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return false
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	return err == nil && windows.EqualSid(tu.User.Sid, me)
}
