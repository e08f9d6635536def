package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// usage is what a kind of process has used so far: CPU time (user and
// system, seconds), system calls (reads and writes, as /proc/PID/io counts
// them) and context switches (voluntary and not, summed over its threads:
// each is a thread going to sleep or being put aside, about one wake-up).
type usage struct {
	cpu      float64
	syscalls int
	switches int
}

// usages is the [usage] of each kind of process of this machine so far:
// webmcp-shim, webmcp-host, the test itself (the MCP client), and
// Chromium's browser, renderers (the extension's apart) and helpers.
func usages() map[string]usage {
	out := map[string]usage{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		_, cpu, ok := procStat(d)
		if !ok {
			continue
		}
		args := procArgs(d)
		if len(args) == 0 {
			continue
		}
		if kind := processKind(args); kind != "" {
			u := out[kind]
			u.cpu += cpu
			u.syscalls += procSyscalls(d)
			u.switches += procSwitches(d)
			out[kind] = u
		}
	}
	return out
}

func processKind(args []string) string {
	name := filepath.Base(args[0])
	switch {
	case name == "webmcp-shim", name == "webmcp-host", name == "e2e.test":
		if name == "e2e.test" {
			return "MCP client (this test)"
		}
		return name
	case !strings.Contains(args[0], "chrom"):
		return ""
	}
	kind := "Chromium browser process"
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--type="):
			kind = "Chromium " + strings.TrimPrefix(a, "--type=")
		case a == "--extension-process":
			return "Chromium extension (service worker)"
		}
	}
	if kind == "Chromium renderer" {
		kind = "Chromium renderer (the page)"
	}
	return kind
}

// cpuTable is what each kind of process spent per call between before and
// after, most CPU first, as markdown rows: CPU time, system calls and
// context switches.
func cpuTable(before, after map[string]usage, calls int) string {
	var kinds []string
	var total usage
	for k, a := range after {
		if d := a.cpu - before[k].cpu; d > 0 {
			kinds = append(kinds, k)
			total.cpu += d
			total.syscalls += a.syscalls - before[k].syscalls
			total.switches += a.switches - before[k].switches
		}
	}
	slices.SortFunc(kinds, func(a, b string) int {
		da, db := after[a].cpu-before[a].cpu, after[b].cpu-before[b].cpu
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return strings.Compare(a, b)
	})
	per := func(n int) float64 { return float64(n) / float64(calls) }
	var b strings.Builder
	for _, k := range kinds {
		a, z := before[k], after[k]
		fmt.Fprintf(&b, "| %s | %.3f ms | %.1f | %.1f |\n", k, (z.cpu-a.cpu)*1000/float64(calls), per(z.syscalls-a.syscalls), per(z.switches-a.switches))
	}
	fmt.Fprintf(&b, "| **all** | **%.3f ms** | **%.1f** | **%.1f** |\n", total.cpu*1000/float64(calls), per(total.syscalls), per(total.switches))
	return b.String()
}

// cpuTableHead is the head of [cpuTable]'s rows.
const cpuTableHead = "| process | CPU per call | system calls per call | context switches per call |\n|---|---:|---:|---:|\n"

// procSyscalls reads the read and write system calls that the process
// folder d (/proc/PID) has made so far (syscr and syscw of its io file;
// other system calls are not counted there).
func procSyscalls(d string) int {
	b, err := os.ReadFile(filepath.Join(d, "io"))
	if err != nil {
		return 0
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ": ")
		if k == "syscr" || k == "syscw" {
			i, _ := strconv.Atoi(v)
			n += i
		}
	}
	return n
}

// procSwitches reads the context switches of every thread of the process
// folder d (/proc/PID) so far; threads that ended are not counted.
func procSwitches(d string) int {
	tasks, _ := filepath.Glob(filepath.Join(d, "task", "[0-9]*", "status"))
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(b)) {
			k, v, _ := strings.Cut(line, ":")
			if k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches" {
				i, _ := strconv.Atoi(strings.TrimSpace(v))
				n += i
			}
		}
	}
	return n
}

// procArgs reads the command line of the process folder d (/proc/PID).
func procArgs(d string) []string {
	cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
	// Chromium's helpers rewrite their command line as one string.
	return strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
}

// procStat reads /proc/PID/stat of the process folder d: its parent's pid
// and its CPU time so far (user and system, seconds).
func procStat(d string) (ppid int, cpu float64, ok bool) {
	stat, err := os.ReadFile(filepath.Join(d, "stat"))
	if err != nil {
		return 0, 0, false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, 0, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return ppid, (ut + st) / 100, true // clock ticks: 100 a second on Linux
}
