package token

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

func TestLoadMakesOnceAndKeeps(t *testing.T) {
	path := filepath.Join(bridgetest.TempDir(t), "cfg", Dir, FileName)
	a, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 64 {
		t.Errorf("token %q: want 64 hex digits", a)
	}
	assertPrivate(t, path)
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

func TestLoadRefusesShortToken(t *testing.T) {
	short := filepath.Join(bridgetest.TempDir(t), FileName)
	writePrivate(t, short, "abc\n")
	if _, err := Load(short); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("Load of a short token = %v, want a refusal", err)
	}
}
