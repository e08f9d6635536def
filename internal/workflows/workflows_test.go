package workflows

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlint is the linter, run with go run: the module proxy serves it,
// and the module cache keeps it after the first run. Not in go.mod: its
// module graph is not the bridge's.
const actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// TestWorkflows: actionlint finds nothing wrong in the workflows (their
// syntax, the expressions, the inputs and outputs of the actions it knows,
// the jobs a job needs, the workflow another calls).
func TestWorkflows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs actionlint through go run")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows in %s (%v)", filepath.Join(root, ".github", "workflows"), err)
	}
	// The tool first, so that a module proxy out of reach is told apart
	// from a finding.
	version := exec.Command("go", "run", actionlint, "-version")
	version.Dir = root
	if out, err := version.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("go run %s: %v (CI reaches the Go module proxy; is GOPROXY off?)\n%s", actionlint, err, out)
		}
		t.Skipf("go run %s: %v (no Go module proxy here?)\n%s", actionlint, err, out)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel(root, f)
	}
	lint := exec.Command("go", append([]string{"run", actionlint, "-color=false"}, files...)...)
	lint.Dir = root
	out, err := lint.CombinedOutput()
	if err != nil {
		t.Errorf("actionlint %s: %v\n%s", strings.Join(files, " "), err, out)
	}
}
