package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/manifest"
)

func TestInstallAndUninstall(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	var out, errs strings.Builder
	if code := installCmd("install", []string{"--user-data-dir", dir}, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	for _, d := range []string{
		filepath.Join(dir, "NativeMessagingHosts"),
		filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"),
		filepath.Join(home, ".config", "google-chrome", "NativeMessagingHosts"),
	} {
		m, err := manifest.Read(d)
		if err != nil {
			t.Errorf("no manifest in %s: %v", d, err)
			continue
		}
		if m.Path != self {
			t.Errorf("manifest in %s names %q, want this binary %q", d, m.Path, self)
		}
	}

	out.Reset()
	if code := installCmd("uninstall", []string{"--user-data-dir", dir}, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	for _, d := range []string{filepath.Join(dir, "NativeMessagingHosts"), filepath.Join(home, ".config", "chromium", "NativeMessagingHosts")} {
		if _, err := os.Stat(filepath.Join(d, manifest.FileName)); !os.IsNotExist(err) {
			t.Errorf("uninstall left %s: %v", d, err)
		}
	}
}

func TestInstallUsageErrors(t *testing.T) {
	var out, errs strings.Builder
	if code := installCmd("install", []string{"--no-browsers"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "--user-data-dir") {
		t.Errorf("install --no-browsers alone = %d, %q; want 2 and a hint", code, errs.String())
	}
	errs.Reset()
	if code := installCmd("install", []string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("install extra = %d, want 2", code)
	}
}
