package token

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadMakesOnceAndKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", Dir, FileName)
	a, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 64 {
		t.Errorf("token %q: want 64 hex digits", a)
	}
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
	b, err := Load(path)
	if err != nil || b != a {
		t.Errorf("second Load = %q, %v; want the same token %q", b, err, a)
	}
	c, err := New(path)
	if err != nil || c == a {
		t.Errorf("New = %q, %v; want a new token", c, err)
	}
	if d, _ := Load(path); d != c {
		t.Errorf("Load after New = %q, want %q", d, c)
	}
	left, _ := os.ReadDir(filepath.Dir(path))
	if len(left) != 1 {
		t.Errorf("folder holds %d files, want only the token", len(left))
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
	short := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := Load(short); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("Load of a short token = %v, want a refusal", err)
	}
}
