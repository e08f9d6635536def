//go:build unix

package installer

import (
	"bytes"
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
