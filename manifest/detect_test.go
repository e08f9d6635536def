package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/webmcp-bridge/bridge/manifest"
)

func installed(t *testing.T, goos, home string, sys manifest.System) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, l := range manifest.Locations(goos, home, "") {
		if l.Key == "" {
			t.Errorf("%s has no key", l.Browser)
		}
		out[l.Key] = manifest.Installed(l, sys)
	}
	return out
}

func TestInstalledLinux(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o755)                       // has run
	os.MkdirAll(filepath.Join(home, ".config", "BraveSoftware", "Brave-Browser"), 0o755) // has run
	onPath := map[string]bool{"microsoft-edge-stable": true}
	sys := manifest.System{GOOS: "linux", Home: home, LookPath: func(c string) (string, error) {
		if onPath[c] {
			return "/usr/bin/" + c, nil
		}
		return "", errors.New("not found")
	}}
	got := installed(t, "linux", home, sys)
	want := map[string]bool{"chromium": true, "brave": true, "edge": true}
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s installed = %v, want %v", k, v, want[k])
		}
	}
	if !manifest.Installed(manifest.UserDataDir("/nowhere"), sys) {
		t.Error("a --user-data-dir location must always count")
	}
}

func TestInstalledDarwin(t *testing.T) {
	home := t.TempDir()
	apps := t.TempDir()
	os.MkdirAll(filepath.Join(apps, "Google Chrome.app"), 0o755)
	os.MkdirAll(filepath.Join(home, "Applications", "Brave Browser.app"), 0o755)
	os.MkdirAll(filepath.Join(home, "Library", "Application Support", "Microsoft Edge"), 0o755)
	got := installed(t, "darwin", home, manifest.System{GOOS: "darwin", Home: home, Roots: []string{apps}})
	want := map[string]bool{"chrome": true, "brave": true, "edge": true}
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s installed = %v, want %v", k, v, want[k])
		}
	}
}
