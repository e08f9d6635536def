package installer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// fakeHome is a HOME where only Chromium has run, with no browser on PATH,
// and no runtime folder but the default one under it.
func fakeHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", endpoint.RuntimeDirEnv} {
		t.Setenv(v, "")
	}
	t.Setenv("PATH", t.TempDir())
	if err := os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestInstallAndUninstall(t *testing.T) {
	home := fakeHome(t)
	profile := filepath.Join(t.TempDir(), "new", "profile") // does not exist yet
	record := filepath.Join(t.TempDir(), installrec.FileName)
	var out, errs strings.Builder
	if code := Run("install", []string{"--user-data-dir", profile, "--record", record}, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	for _, want := range []string{"browsers found: Chromium skipped, not installed: Chrome, ", "wrote " + filepath.Join(profile, "NativeMessagingHosts", manifest.FileName)} {
		if !strings.Contains(oneLine(out.String()), want) {
			t.Errorf("install output lacks %q:\n%s", want, out.String())
		}
	}
	self, _ := selfPath()
	for _, d := range []string{filepath.Join(profile, "NativeMessagingHosts"), filepath.Join(home, ".config", "chromium", "NativeMessagingHosts")} {
		m, err := manifest.Read(d)
		if err != nil {
			t.Errorf("no manifest in %s: %v", d, err)
			continue
		}
		if m.Path != self {
			t.Errorf("manifest in %s names %q, want this binary %q", d, m.Path, self)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "google-chrome")); err == nil {
		t.Error("install created a folder for Chrome, which is not installed")
	}
	rec, _, err := installrec.Load(record)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Of(installrec.Manifest)); n != 2 {
		t.Errorf("record lists %d manifests, want 2: %+v", n, rec.Entries)
	}
	// The folders it made: the profile's missing parent, the profile and
	// two NativeMessagingHosts folders.
	if n := len(rec.Of(installrec.Dir)); n != 4 {
		t.Errorf("record lists %d folders, want 4: %+v", n, rec.Entries)
	}

	// Again: nothing changes.
	before, _ := os.ReadFile(record)
	out.Reset()
	if code := Run("install", []string{"--user-data-dir", profile, "--record", record}, &out, &errs); code != 0 {
		t.Fatalf("second install = %d: %s", code, errs.String())
	}
	if strings.Contains(out.String(), "wrote ") {
		t.Errorf("second install wrote something:\n%s", out.String())
	}
	if after, _ := os.ReadFile(record); string(after) != string(before) {
		t.Errorf("second install changed the record:\n%s\n---\n%s", before, after)
	}

	// Uninstall without --user-data-dir: the record knows the profile.
	out.Reset()
	if code := Run("uninstall", []string{"--record", record}, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	for _, gone := range []string{filepath.Dir(profile), filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"), record} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("uninstall left %s (%v):\n%s", gone, err, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "chromium")); err != nil {
		t.Errorf("uninstall removed the browser's own folder: %v", err)
	}
}

func TestInstallForcedBrowser(t *testing.T) {
	home := fakeHome(t)
	var out, errs strings.Builder
	if code := Run("install", []string{"--browser", "edge"}, &out, &errs); code != 0 {
		t.Fatalf("install --browser edge = %d: %s", code, errs.String())
	}
	if _, err := manifest.Read(filepath.Join(home, ".config", "microsoft-edge", "NativeMessagingHosts")); err != nil {
		t.Errorf("--browser edge wrote no manifest: %v\n%s", err, out.String())
	}
	if code := Run("install", []string{"--browser", "netscape"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "chromium") {
		t.Errorf("install --browser netscape = %d, %q", code, errs.String())
	}
}

func TestUninstallWithoutRecord(t *testing.T) {
	home := fakeHome(t)
	var out, errs strings.Builder
	if code := Run("install", nil, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	// A manifest of another install stays.
	other := filepath.Join(home, ".config", "chromium", "other")
	m, _ := manifest.New("/elsewhere/webmcp-host")
	manifest.Write(m, other)
	out.Reset()
	if code := Run("uninstall", []string{"--user-data-dir", filepath.Join(home, ".config", "chromium", "other", "..")}, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "chromium", "NativeMessagingHosts", manifest.FileName)); !os.IsNotExist(err) {
		t.Errorf("uninstall left this binary's manifest: %v", err)
	}
	if _, err := manifest.Read(other); err != nil {
		t.Errorf("uninstall removed another install's manifest: %v", err)
	}
}

func TestInstallUsageErrors(t *testing.T) {
	var out, errs strings.Builder
	if code := Run("install", []string{"--no-browsers"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "--user-data-dir") {
		t.Errorf("install --no-browsers alone = %d, %q; want 2 and a hint", code, errs.String())
	}
	errs.Reset()
	if code := Run("install", []string{"extra"}, &out, &errs); code != 2 {
		t.Errorf("install extra = %d, want 2", code)
	}
}

// Firefox, found by its folder ~/.mozilla or its command on PATH, gets its
// own manifest in ~/.mozilla/native-messaging-hosts, which lists the
// add-on's ID in allowed_extensions; the uninstall removes it.
func TestInstallFirefox(t *testing.T) {
	home := fakeHome(t)
	// Not run yet, but firefox-esr is on PATH.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "firefox-esr"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	record := filepath.Join(t.TempDir(), installrec.FileName)
	var out, errs strings.Builder
	if code := Run("install", []string{"--record", record}, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	dir := filepath.Join(home, ".mozilla", "native-messaging-hosts")
	for _, want := range []string{"browsers found: Chromium, Firefox", "wrote " + filepath.Join(dir, manifest.FileName) + " (Firefox)", "Firefox add-on " + protocol.FirefoxAddonID + " may start", "extension ID " + protocol.ExtensionID} {
		if !strings.Contains(oneLine(out.String()), want) {
			t.Errorf("install output lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := selfPath()
	if s := string(data); !strings.Contains(s, `"allowed_extensions": [`+"\n"+`    "`+protocol.FirefoxAddonID+`"`) || strings.Contains(s, "allowed_origins") || !strings.Contains(s, `"path": "`+self+`"`) {
		t.Errorf("Firefox's manifest:\n%s", s)
	}
	if m, err := manifest.Read(filepath.Join(home, ".config", "chromium", "NativeMessagingHosts")); err != nil || !m.Allows(false) {
		t.Errorf("Chromium's manifest = %+v, %v", m, err)
	}
	rec, _, _ := installrec.Load(record)
	if n := len(rec.Of(installrec.Manifest)); n != 2 {
		t.Errorf("record lists %d manifests, want 2: %+v", n, rec.Entries)
	}

	// Again: unchanged.
	out.Reset()
	if code := Run("install", []string{"--record", record}, &out, &errs); code != 0 || strings.Contains(out.String(), "wrote ") {
		t.Errorf("second install = %d, wrote something:\n%s%s", code, out.String(), errs.String())
	}

	out.Reset()
	if code := Run("uninstall", []string{"--record", record}, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	if !strings.Contains(oneLine(out.String()), "removed "+filepath.Join(dir, manifest.FileName)+" (Firefox)") {
		t.Errorf("uninstall output:\n%s", out.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s: %v", dir, err)
	}
	// ~/.mozilla was made by the install (Firefox had not run): gone too.
	if _, err := os.Stat(filepath.Join(home, ".mozilla")); !os.IsNotExist(err) {
		t.Errorf("uninstall left ~/.mozilla, which the install made: %v", err)
	}
}

// Without a record, the uninstall finds Firefox's manifest where Firefox
// looks for it.
func TestUninstallFirefoxWithoutRecord(t *testing.T) {
	home := fakeHome(t)
	os.MkdirAll(filepath.Join(home, ".mozilla", "firefox"), 0o700) // Firefox has run
	var out, errs strings.Builder
	if code := Run("install", nil, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	dir := filepath.Join(home, ".mozilla", "native-messaging-hosts")
	if m, err := manifest.Read(dir); err != nil || !m.Allows(true) {
		t.Fatalf("Firefox's manifest = %+v, %v\n%s", m, err, out.String())
	}
	out.Reset()
	if code := Run("uninstall", nil, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); !os.IsNotExist(err) {
		t.Errorf("uninstall left Firefox's manifest: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".mozilla", "firefox")); err != nil {
		t.Errorf("uninstall removed Firefox's own folder: %v", err)
	}
}
