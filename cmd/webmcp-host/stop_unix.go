//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// proc is a running process, as [processes] sees it.
type proc struct {
	pid  int
	exe  string // its executable's path (Linux: without " (deleted)")
	uid  int    // its real user id; -1 when unknown
	euid int    // its effective user id; -1 when unknown
	args string // its command line, when known (Linux), for naming it
}

// mine says whether p is the user's own process: real and effective user
// ids both the user's. Root's uninstall must not stop another user's
// hosts and shims that run a binary of the same path.
func (p proc) mine() bool {
	return p.uid == os.Getuid() && p.euid == os.Getuid()
}

// stopProcesses sends SIGTERM to the user's own processes that run one of
// the binaries paths (a host exits on it and removes its socket, a shim
// ends its session), and returns them by pid. It never signals itself, nor
// a process of another user.
func stopProcesses(paths []string, stderr io.Writer) []proc {
	if len(paths) == 0 {
		return nil
	}
	var stopped []proc
	for _, p := range processes() {
		if p.pid == os.Getpid() || !p.mine() || !slices.Contains(paths, p.exe) {
			continue
		}
		if err := syscall.Kill(p.pid, syscall.SIGTERM); err != nil {
			say(stderr, "webmcp-host uninstall: could not stop %s (pid %d): %v (stop it by hand: kill %d)", filepath.Base(p.exe), p.pid, err, p.pid)
			continue
		}
		stopped = append(stopped, p)
	}
	slices.SortFunc(stopped, func(a, b proc) int { return a.pid - b.pid })
	return stopped
}

// processes lists the processes whose executables can be read: from /proc
// on Linux (another user's only as root), from ps elsewhere (the user's
// own).
func processes() []proc {
	if runtime.GOOS == "linux" {
		return linuxProcesses("/proc")
	}
	var out []proc
	uid := strconv.Itoa(os.Getuid())
	b, err := exec.Command("ps", "-x", "-U", uid, "-o", "pid=", "-o", "ruid=", "-o", "uid=", "-o", "comm=").Output()
	if err != nil {
		return out
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 4 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ruid, err2 := strconv.Atoi(f[1])
		euid, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, proc{pid: pid, uid: ruid, euid: euid, exe: strings.Join(f[3:], " ")})
	}
	return out
}

// linuxProcesses reads the processes from a procfs mounted at root.
func linuxProcesses(root string) []proc {
	var out []proc
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join(root, e.Name())
		exe, err := os.Readlink(filepath.Join(dir, "exe"))
		if err != nil {
			continue
		}
		p := proc{pid: pid, exe: strings.TrimSuffix(exe, " (deleted)"), uid: -1, euid: -1}
		if status, err := os.ReadFile(filepath.Join(dir, "status")); err == nil {
			p.uid, p.euid = statusUIDs(status)
		}
		if cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
			args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			if len(args) > 0 && args[0] != "" {
				args[0] = filepath.Base(args[0])
				p.args = strings.Join(args, " ")
			}
		}
		out = append(out, p)
	}
	return out
}

// statusUIDs reads the real and effective user ids from the "Uid:" line of
// a /proc/PID/status file (real, effective, saved, filesystem); -1 when it
// has none.
func statusUIDs(status []byte) (uid, euid int) {
	for _, line := range strings.Split(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, "Uid:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		u, err1 := strconv.Atoi(f[0])
		e, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			break
		}
		return u, e
	}
	return -1, -1
}

// describe names a stopped process for the uninstall's output.
func (p proc) describe() string {
	if p.args != "" {
		return fmt.Sprintf("%s (pid %d: %s)", filepath.Base(p.exe), p.pid, p.args)
	}
	return fmt.Sprintf("%s (pid %d)", filepath.Base(p.exe), p.pid)
}
