package userfiles

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestPlaces(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG variables are Linux's")
	}
	cfg, cache := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_CACHE_HOME", cache)
	if p, err := TokenPath(); err != nil || p != filepath.Join(cfg, "webmcp-bridge", "http-token") {
		t.Errorf("TokenPath = %q, %v", p, err)
	}
	if d, err := CacheDir(); err != nil || d != filepath.Join(cache, "webmcp-bridge") {
		t.Errorf("CacheDir = %q, %v", d, err)
	}
	if d := Results(); d != filepath.Join(cache, "webmcp-bridge", "results") {
		t.Errorf("Results = %q", d)
	}
}
