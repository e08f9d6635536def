package bridgetest

import (
	"os"
	"runtime"
	"testing"
)

// SkipOutsideCI is the one rule for a test that lacks what it needs (why
// says what: a tool, root, Wine, a browser's answer): it skips the test,
// except in CI's Linux job, where it fails it. That job (.ci/run, CI set)
// runs as root and installs Chromium, Firefox ESR, the npm tools and Wine,
// so whatever a test needs is there, and a test that skips there tests
// nothing without anyone seeing it. The macOS and Windows jobs (CI set
// too) and developers' machines run what they can and skip the rest.
func SkipOutsideCI(t testing.TB, why string) {
	t.Helper()
	if InCIGate() {
		t.Fatalf("%s: CI's Linux job (.ci/run) must run this test; install what it needs there", why)
	}
	t.Skip(why)
}

// InCIGate reports whether this is CI's Linux job (.ci/run): CI set, on
// Linux. SkipOutsideCI fails there instead of skipping.
func InCIGate() bool {
	return os.Getenv("CI") != "" && runtime.GOOS == "linux"
}
