package manifest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

func TestWriteReadRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profile", "NativeMessagingHosts")
	m, err := manifest.New("/opt/webmcp/bin/webmcp-host")
	if err != nil {
		t.Fatal(err)
	}
	path, err := manifest.Write(m, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(path), "dev.webmcp.bridge.json"; got != want {
		t.Errorf("file name = %q, want %q", got, want)
	}
	var raw map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name":            "dev.webmcp.bridge",
		"description":     m.Description,
		"path":            "/opt/webmcp/bin/webmcp-host",
		"type":            "stdio",
		"allowed_origins": []any{"chrome-extension://" + protocol.ExtensionID + "/"},
	}
	if d := cmp.Diff(want, raw); d != "" {
		t.Errorf("manifest JSON (-want +got):\n%s", d)
	}

	// Idempotent: a second write leaves the file as it was.
	st1, _ := os.Stat(path)
	if _, err := manifest.Write(m, dir); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(path)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Errorf("second Write rewrote an identical manifest")
	}

	back, err := manifest.Read(dir)
	if err != nil || back.Path != m.Path {
		t.Fatalf("Read = %+v, %v", back, err)
	}
	removed, err := manifest.Remove(dir)
	if err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("empty manifest folder left behind: %v", err)
	}
	if removed, err := manifest.Remove(dir); err != nil || removed {
		t.Errorf("second Remove = %v, %v; want false, nil", removed, err)
	}
}

// Firefox's manifest lists the add-on's ID in allowed_extensions, and
// nothing in allowed_origins, which Firefox does not know.
func TestFirefoxManifest(t *testing.T) {
	dir := t.TempDir()
	m, err := manifest.For(manifest.Location{Browser: "Firefox", Firefox: true}, "/opt/webmcp/bin/webmcp-host")
	if err != nil {
		t.Fatal(err)
	}
	path, err := manifest.Write(m, dir)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name":               "dev.webmcp.bridge",
		"description":        m.Description,
		"path":               "/opt/webmcp/bin/webmcp-host",
		"type":               "stdio",
		"allowed_extensions": []any{"webmcp-bridge@webmcp.dev"},
	}
	if d := cmp.Diff(want, raw); d != "" {
		t.Errorf("Firefox manifest JSON (-want +got):\n%s", d)
	}
	back, err := manifest.Read(dir)
	if err != nil || !back.Same(m) || !back.Allows(true) || back.Allows(false) {
		t.Errorf("Read = %+v, %v; want the Firefox manifest, allowing the add-on only", back, err)
	}
	chrome, _ := manifest.For(manifest.Location{Browser: "Chrome"}, "/opt/webmcp/bin/webmcp-host")
	if !chrome.Allows(false) || chrome.Allows(true) || chrome.Same(m) {
		t.Errorf("Chrome's manifest %+v: allows the extension %v, the add-on %v", chrome, chrome.Allows(false), chrome.Allows(true))
	}
	if _, err := manifest.NewFirefox("webmcp-host"); err == nil {
		t.Error("NewFirefox took a relative path")
	}
}

func TestRemoveKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	m, _ := manifest.New("/x/webmcp-host")
	if _, err := manifest.Write(m, dir); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "com.example.other.json")
	os.WriteFile(other, []byte("{}"), 0o644)
	if _, err := manifest.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another host's manifest was removed: %v", err)
	}
}

func TestNewRefusesRelativePath(t *testing.T) {
	if _, err := manifest.New("bin/webmcp-host"); err == nil {
		t.Error("New accepted a relative host path")
	}
}

func TestLocations(t *testing.T) {
	linux := manifest.Locations("linux", "/home/u", "")
	byName := map[string]string{}
	for _, l := range linux {
		byName[l.Browser] = l.Dir
	}
	for name, dir := range map[string]string{
		"Chrome":             "/home/u/.config/google-chrome/NativeMessagingHosts",
		"Chromium":           "/home/u/.config/chromium/NativeMessagingHosts",
		"Edge":               "/home/u/.config/microsoft-edge/NativeMessagingHosts",
		"Brave":              "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
		"Chrome for Testing": "/home/u/.config/google-chrome-for-testing/NativeMessagingHosts",
	} {
		if byName[name] != dir {
			t.Errorf("linux %s = %q, want %q", name, byName[name], dir)
		}
	}
	if got := manifest.Locations("linux", "/home/u", "/cfg")[0].Dir; got != "/cfg/google-chrome/NativeMessagingHosts" {
		t.Errorf("XDG_CONFIG_HOME not honoured: %q", got)
	}
	mac := map[string]string{}
	for _, l := range manifest.Locations("darwin", "/Users/u", "") {
		mac[l.Browser] = l.Dir
	}
	if got, want := mac["Chrome"], "/Users/u/Library/Application Support/Google/Chrome/NativeMessagingHosts"; got != want {
		t.Errorf("darwin Chrome = %q, want %q", got, want)
	}
	if got, want := mac["Chrome for Testing"], "/Users/u/Library/Application Support/Google/Chrome for Testing/NativeMessagingHosts"; got != want {
		t.Errorf("darwin Chrome for Testing = %q, want %q", got, want)
	}
	// Firefox: its own folder, not below $XDG_CONFIG_HOME.
	for _, tc := range []struct{ goos, home, want string }{
		{"linux", "/home/u", "/home/u/.mozilla/native-messaging-hosts"},
		{"darwin", "/Users/u", "/Users/u/Library/Application Support/Mozilla/NativeMessagingHosts"},
	} {
		var ff []manifest.Location
		for _, l := range manifest.Locations(tc.goos, tc.home, "/cfg") {
			if l.Firefox {
				ff = append(ff, l)
			}
		}
		if len(ff) != 1 || ff[0].Dir != tc.want || ff[0].Key != "firefox" || ff[0].Browser != "Firefox" {
			t.Errorf("%s Firefox locations = %+v, want one, firefox in %s", tc.goos, ff, tc.want)
		}
	}
	if l := manifest.Locations("windows", `C:\Users\u`, ""); l != nil {
		t.Errorf("windows has registry-based locations, got %v", l)
	}
	if got := manifest.UserDataDir("/tmp/p").Dir; got != "/tmp/p/NativeMessagingHosts" {
		t.Errorf("UserDataDir = %q", got)
	}
}

// A store's IDs join the fixed one in allowed_origins, once each, after
// it; an ID that is not 32 letters a to p is refused; Firefox's manifest
// takes none.
func TestExtraExtensionIDs(t *testing.T) {
	store := "abcdefghijklmnopabcdefghijklmnop"
	m, err := manifest.New("/x/webmcp-host", store, store)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{protocol.ExtensionOrigin, "chrome-extension://" + store + "/"}
	if !slices.Equal(m.AllowedOrigins, want) {
		t.Errorf("allowed_origins = %q, want %q", m.AllowedOrigins, want)
	}
	if !m.Allows(false) || len(m.MissingIDs([]string{store, protocol.ExtensionID})) != 0 {
		t.Errorf("the manifest does not allow both IDs: %q", m.AllowedOrigins)
	}
	plain, _ := manifest.New("/x/webmcp-host")
	if got := plain.MissingIDs([]string{store}); !slices.Equal(got, []string{store}) {
		t.Errorf("MissingIDs of a manifest without the store's ID = %q", got)
	}
	// Written and read back, the list is the same.
	dir := t.TempDir()
	if _, err := manifest.Write(m, dir); err != nil {
		t.Fatal(err)
	}
	if back, err := manifest.Read(dir); err != nil || !back.Same(m) {
		t.Errorf("read back %+v, %v; want %+v", back, err, m)
	}
	for _, bad := range []string{"", "abc", strings.ToUpper(store), "abcdefghijklmnopabcdefghijklmnoq", store + "a", "chrome-extension://" + store + "/"} {
		if _, err := manifest.New("/x/webmcp-host", bad); err == nil || !strings.Contains(err.Error(), "32 letters a to p") {
			t.Errorf("New with ID %q: %v, want it refused", bad, err)
		}
	}
	ff, err := manifest.For(manifest.Location{Firefox: true}, "/x/webmcp-host", store)
	if err != nil || len(ff.AllowedOrigins) != 0 || !ff.Allows(true) {
		t.Errorf("Firefox's manifest with a store ID: %+v, %v", ff, err)
	}
}
