package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/shim/spill"
)

func TestCleanAndMaxResult(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	dir := spill.Dir()
	if !strings.HasPrefix(dir, home) {
		t.Fatalf("spill.Dir() = %s, not under HOME", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "b.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"clean"}, strings.NewReader(""), &out, &errb); code != ExitOK || !strings.Contains(out.String(), "removed 2 saved results") {
		t.Fatalf("clean: exit %d, %q %q", code, out.String(), errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}

	if !strings.Contains(Usage(), "--max-result SIZE") || !strings.Contains(Usage(), spill.ThresholdEnv) {
		t.Error("--help does not explain --max-result and its environment variable")
	}
	var f sizeFlag
	if err := f.Set("1MiB"); err != nil || int(f) != 1<<20 {
		t.Errorf("--max-result 1MiB = %d, %v", f, err)
	}
	for _, bad := range []string{"0", "lots"} {
		if err := f.Set(bad); err == nil {
			t.Errorf("--max-result %s was taken", bad)
		}
	}
}
