package firefoxext_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webmcp-bridge/bridge/internal/firefoxext"
	"github.com/webmcp-bridge/bridge/protocol"
)

func chromeManifest(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "extension", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The committed manifest.json is what extension/manifest.json makes.
func TestUpToDate(t *testing.T) {
	want, err := firefoxext.Manifest(chromeManifest(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("internal/firefoxext/manifest.json is out of date with extension/manifest.json: run go generate ./internal/firefoxext\n%s", cmp.Diff(string(want), string(got)))
	}
}

func TestManifest(t *testing.T) {
	var chrome, ff map[string]any
	json.Unmarshal(chromeManifest(t), &chrome)
	b, err := firefoxext.Manifest(chromeManifest(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ff); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`\u003c`)) {
		t.Error("<all_urls> is escaped")
	}
	gecko := ff["browser_specific_settings"].(map[string]any)["gecko"].(map[string]any)
	if gecko["id"] != protocol.FirefoxAddonID || gecko["strict_min_version"] != firefoxext.MinVersion ||
		!cmp.Equal(gecko["data_collection_permissions"], map[string]any{"required": []any{"none"}}) {
		t.Errorf("gecko = %v", gecko)
	}
	bg := ff["background"].(map[string]any)
	if d := cmp.Diff(map[string]any{"scripts": []any{"background.js"}, "type": "module"}, bg); d != "" {
		t.Errorf("background (-want +got):\n%s", d)
	}
	sidebar := ff["sidebar_action"].(map[string]any)
	if sidebar["default_panel"] != chrome["side_panel"].(map[string]any)["default_path"] || sidebar["default_title"] != "WebMCP bridge" || sidebar["default_icon"] == nil {
		t.Errorf("sidebar_action = %v", sidebar)
	}
	for _, k := range []string{"key", "minimum_chrome_version", "side_panel"} {
		if _, ok := ff[k]; ok {
			t.Errorf("Firefox's manifest has %q", k)
		}
	}
	if d := cmp.Diff([]any{"nativeMessaging", "storage", "scripting", "activeTab", "webRequest"}, ff["permissions"]); d != "" {
		t.Errorf("permissions (-want +got):\n%s", d)
	}
	// The rest as it is in Chrome's, the host permissions (the allowed sites) first of all.
	for k, v := range chrome {
		switch k {
		case "key", "minimum_chrome_version", "side_panel", "background", "permissions":
			continue
		}
		if d := cmp.Diff(v, ff[k]); d != "" {
			t.Errorf("%s differs from Chrome's (-chrome +firefox):\n%s", k, d)
		}
	}
	if _, err := firefoxext.Manifest([]byte(`{"background": {"scripts": ["a.js"]}}`)); err == nil {
		t.Error("a manifest without a service worker was taken")
	}
}

// Build writes a folder Firefox loads: the extension's files with
// Firefox's manifest, without the Node tests.
func TestBuild(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "addon")
	if err := firefoxext.Build(filepath.Join("..", "..", "extension"), dst); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dst, "manifest.json"))
	want, _ := os.ReadFile("manifest.json")
	if !bytes.Equal(got, want) {
		t.Errorf("the add-on's manifest is not Firefox's:\n%s", got)
	}
	for _, f := range []string{"background.js", "generated/main-world.js", "generated/isolated-world.js", "ui/panel.html", "icons/icon-128.png"} {
		a, err1 := os.ReadFile(filepath.Join("..", "..", "extension", f))
		b, err2 := os.ReadFile(filepath.Join(dst, f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s not copied as it is: %v, %v", f, err1, err2)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "test")); !os.IsNotExist(err) {
		t.Errorf("the Node tests were copied: %v", err)
	}
	if err := firefoxext.Build(filepath.Join("..", "..", "extension"), dst); err == nil {
		t.Error("Build into a folder that is not empty succeeded")
	}
}
