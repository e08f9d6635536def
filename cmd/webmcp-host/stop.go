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

// stopHosts sends SIGTERM to the user's processes that run one of the
// binaries paths (a host exits on it and removes its socket), and returns
// their ids. It never signals itself.
func stopHosts(paths []string, stderr io.Writer) []int {
	if len(paths) == 0 {
		return nil
	}
	var pids []int
	for pid, exe := range processes() {
		if pid == os.Getpid() || !slices.Contains(paths, strings.TrimSuffix(exe, " (deleted)")) {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			fmt.Fprintf(stderr, "webmcp-host uninstall: could not stop webmcp-host pid %d: %v (stop it by hand: kill %d)\n", pid, err, pid)
			continue
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// processes maps the ids of the user's processes to their executables:
// from /proc on Linux, from ps elsewhere.
func processes() map[int]string {
	out := map[int]string{}
	if runtime.GOOS == "linux" {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil {
				out[pid] = exe
			}
		}
		return out
	}
	b, err := exec.Command("ps", "-x", "-o", "pid=", "-o", "comm=", "-U", strconv.Itoa(os.Getuid())).Output()
	if err != nil {
		return out
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 2 {
			continue
		}
		if pid, err := strconv.Atoi(f[0]); err == nil {
			out[pid] = strings.Join(f[1:], " ")
		}
	}
	return out
}
