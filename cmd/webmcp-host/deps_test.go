package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The host side links nothing of the shim's: what both need (where the
// HTTP token lives, say) is in a package of its own (internal/userfiles).
func TestNoShimPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -deps: %v", goos, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if strings.HasPrefix(pkg, "github.com/webmcp-bridge/bridge/shim") {
				t.Errorf("GOOS=%s: webmcp-host links %s", goos, pkg)
			}
		}
	}
}
