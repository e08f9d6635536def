package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
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
	onPath := map[string]bool{"microsoft-edge-stable": true, "firefox-esr": true}
	sys := manifest.System{GOOS: "linux", Home: home, LookPath: func(c string) (string, error) {
		if onPath[c] {
			return "/usr/bin/" + c, nil
		}
		return "", errors.New("not found")
	}}
	got := installed(t, "linux", home, sys)
	want := map[string]bool{"chromium": true, "brave": true, "edge": true, "firefox": true}
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
	// Firefox has run: ~/Library/Application Support/Mozilla is there.
	os.MkdirAll(filepath.Join(home, "Library", "Application Support", "Mozilla"), 0o755)
	got = installed(t, "darwin", home, manifest.System{GOOS: "darwin", Home: home, Roots: []string{apps}})
	want["firefox"] = true
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s installed = %v, want %v", k, v, want[k])
		}
	}
}

func TestInstalledWindows(t *testing.T) {
	local, pf := bridgetest.TempDir(t), bridgetest.TempDir(t)
	// Edge has run; Brave's program is installed for the user alone;
	// Chrome's for everyone.
	os.MkdirAll(filepath.Join(local, "Microsoft", "Edge", "User Data"), 0o755)
	exe := func(root string, rel ...string) {
		p := filepath.Join(append([]string{root}, rel...)...)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe(local, "BraveSoftware", "Brave-Browser", "Application", "brave.exe")
	exe(pf, "Google", "Chrome", "Application", "chrome.exe")
	// A folder named like the program is not the program.
	os.MkdirAll(filepath.Join(pf, "Chromium", "Application", "chrome.exe"), 0o755)
	sys := manifest.System{GOOS: "windows", LocalAppData: local, ProgramFiles: []string{pf}}
	got := map[string]bool{}
	for _, l := range manifest.WindowsLocations() {
		got[l.Key] = manifest.Installed(l, sys)
	}
	want := map[string]bool{"chrome": true, "edge": true, "brave": true}
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s installed = %v, want %v", k, v, want[k])
		}
	}
	if len(got) != 9 {
		t.Errorf("Windows has %d browsers, want 9: %v", len(got), got)
	}
	// Firefox: its program in Mozilla Firefox, or its data in
	// %LOCALAPPDATA%\Mozilla\Firefox.
	ff := manifest.WindowsLocations()[8]
	if ff.Key != "firefox" || !ff.Firefox || manifest.Installed(ff, sys) {
		t.Fatalf("%+v: want firefox, not installed yet", ff)
	}
	exe(pf, "Mozilla Firefox", "firefox.exe")
	if !manifest.Installed(ff, sys) {
		t.Error("Firefox's program is there, but Installed says no")
	}
	local2 := bridgetest.TempDir(t)
	os.MkdirAll(filepath.Join(local2, "Mozilla", "Firefox", "Profiles"), 0o755)
	if !manifest.Installed(ff, manifest.System{GOOS: "windows", LocalAppData: local2}) {
		t.Error("Firefox has run (%LOCALAPPDATA%\\Mozilla\\Firefox), but Installed says no")
	}
}

func TestWindowsKeys(t *testing.T) {
	keys := map[string][]string{}
	for _, l := range manifest.WindowsLocations() {
		if l.Dir != "" {
			t.Errorf("%s has a folder %q on Windows", l.Browser, l.Dir)
		}
		keys[l.Key] = l.RegKeys
	}
	// Every Chrome channel reads Chrome's one key; Brave its own and
	// Chrome's.
	for k, want := range map[string][]string{
		"chrome-canary": {manifest.ChromeRegKey},
		"chromium":      {manifest.ChromiumRegKey},
		"edge":          {manifest.EdgeRegKey},
		"brave":         {manifest.BraveRegKey, manifest.ChromeRegKey},
		"firefox":       {manifest.FirefoxRegKey},
	} {
		if !slices.Equal(keys[k], want) {
			t.Errorf("%s keys = %v, want %v", k, keys[k], want)
		}
	}
	if got := manifest.HostKey(manifest.FirefoxRegKey); got != `Software\Mozilla\NativeMessagingHosts\dev.webmcp.bridge` {
		t.Errorf("Firefox HostKey = %q", got)
	}
	if got := manifest.HostKey(manifest.ChromeRegKey); got != `Software\Google\Chrome\NativeMessagingHosts\dev.webmcp.bridge` {
		t.Errorf("HostKey = %q", got)
	}
}
