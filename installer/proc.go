package installer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// name is the program p runs, without ".exe": "webmcp-host".
func (p proc) name() string { return strings.TrimSuffix(filepath.Base(p.exe), ".exe") }

// describe names a stopped process for the uninstall's output.
func (p proc) describe() string {
	if p.args != "" {
		return fmt.Sprintf("%s (pid %d: %s)", filepath.Base(p.exe), p.pid, p.args)
	}
	return fmt.Sprintf("%s (pid %d)", filepath.Base(p.exe), p.pid)
}
