package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cpuSeconds is the CPU time (user and system) that each kind of process
// of this machine has used so far: webmcp-shim, webmcp-host, the test
// itself (the MCP client), and Chromium's browser, renderers (the
// extension's apart) and helpers.
func cpuSeconds() map[string]float64 {
	out := map[string]float64{}
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
			out[kind] += cpu
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

// cpuTable is the CPU time per call that each kind of process spent
// between before and after, most first, as markdown rows.
func cpuTable(before, after map[string]float64, calls int) string {
	var kinds []string
	total := 0.0
	for k := range after {
		if d := after[k] - before[k]; d > 0 {
			kinds = append(kinds, k)
			total += d
		}
	}
	slices.SortFunc(kinds, func(a, b string) int {
		da, db := after[a]-before[a], after[b]-before[b]
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "| %s | %.3f ms |\n", k, (after[k]-before[k])*1000/float64(calls))
	}
	fmt.Fprintf(&b, "| **all** | **%.3f ms** |\n", total*1000/float64(calls))
	return b.String()
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
