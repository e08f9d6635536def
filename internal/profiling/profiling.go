// Package profiling writes a CPU profile of a bridge process (webmcp-host,
// webmcp-shim) for its whole life when $WEBMCP_CPUPROFILE names a
// directory: the Go side of the per-hop profile (docs/performance.md).
//
// Production code.
package profiling

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// Env names the directory that gets the profiles.
const Env = "WEBMCP_CPUPROFILE"

// Start starts a CPU profile of this process into
// $WEBMCP_CPUPROFILE/<name>-<pid>.pprof when the variable is set, and
// returns the function that stops it and writes the file out. Without the
// variable it does nothing. A profile that cannot start is said on stderr
// and the process goes on.
func Start(name string) (stop func()) {
	dir := os.Getenv(Env)
	if dir == "" {
		return func() {}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, os.Getpid()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: no CPU profile (%s): %v\n", name, Env, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "%s: no CPU profile (%s): %v\n", name, Env, err)
		f.Close()
		os.Remove(path)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
