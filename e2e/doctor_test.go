package e2e

import (
	"strings"
	"testing"
)

// webmcp-shim doctor checks the chain link by link: the manifest that
// install.sh wrote, the runtime directory, and the live host.
func TestDoctor(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.openDemo("localhost")
		out, err := b.shimCLI("doctor", "--user-data-dir", b.userData)
		if err != nil {
			t.Fatalf("webmcp-shim doctor: %v\n%s", err, out)
		}
		for _, want := range []string{"--user-data-dir " + b.userData + ": the browser may start", "runtime directory", "host pid", "All good"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "PROBLEM") {
			t.Errorf("doctor found a problem in a working set-up:\n%s", out)
		}
	})
}
