//go:build !windows

package token

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertPrivate checks that the token file at path is 0600 in a 0700
// folder.
func assertPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("token folder mode %v, want 0700", di.Mode().Perm())
	}
}

// writePrivate writes a file at path that the user alone may read.
func writePrivate(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRefusesOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(strings.Repeat("a", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "token --new") {
		t.Errorf("Load of a 0644 token = %v, want a refusal that says to run token --new", err)
	}
	link := filepath.Join(t.TempDir(), FileName)
	os.Chmod(path, 0o600)
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a symlink = %v, want a refusal", err)
	}
}
