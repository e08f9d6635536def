// Package firefoxext makes the Firefox packaging of the extension from its
// one source: the same files, with a manifest for Firefox generated from
// extension/manifest.json (Chrome's), never kept by hand.
//
// Firefox's manifest differs from Chrome's in what Firefox does not have or
// does its own way:
//
//   - browser_specific_settings.gecko.id is the add-on's ID,
//     [protocol.FirefoxAddonID], which the native-messaging manifest lists in
//     allowed_extensions (Chrome's ID comes from "key", which goes);
//   - background.scripts with type "module" (an event page) instead of
//     background.service_worker, which Firefox does not run;
//   - sidebar_action instead of side_panel (and no "sidePanel"
//     permission);
//   - no minimum_chrome_version; strict_min_version is [MinVersion] (and
//     [MinAndroidVersion] in gecko_android), the first Firefox that reads
//     data_collection_permissions (main-world content scripts, "world":
//     "MAIN", which the polyfill needs, came before);
//   - data_collection_permissions (in gecko) "none": the add-on collects no
//     data and sends nothing off the machine, as addons.mozilla.org asks
//     new add-ons to declare.
//
// The content scripts, the popup, the options page and every other key stay
// as they are. The generated manifest is committed beside this file
// (manifest.json), so that a change to extension/manifest.json shows what it
// does to Firefox's; the test of this package fails when it is out of date.
// Regenerate it with
//
//	go generate ./internal/firefoxext
//
// and write a folder that Firefox loads (about:debugging, "Load Temporary
// Add-on") with
//
//	go run ./internal/firefoxext/gen -o DIR
//
// Production code (webmcp-host's installer writes the Firefox add-on with it) and a build tool (go generate).
package firefoxext

//go:generate go run ./gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/webmcp-bridge/bridge/internal/extfiles"
	"github.com/webmcp-bridge/bridge/protocol"
)

// MinVersion is the oldest Firefox the add-on declares it runs in: 140 (an
// ESR), the first that reads data_collection_permissions, which
// addons.mozilla.org requires (content scripts in the page's main world,
// which the polyfill needs, came in 128).
const MinVersion = "140.0"

// MinAndroidVersion is the oldest Firefox for Android the add-on declares:
// 142, the first there that reads data_collection_permissions (the add-on
// is for the desktop, where native messaging is; Mozilla's linter checks
// both).
const MinAndroidVersion = "142.0"

// Manifest returns Firefox's manifest made from chrome, the extension's
// manifest.json. Its keys are sorted; it ends in a newline.
func Manifest(chrome []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(chrome, &m); err != nil {
		return nil, fmt.Errorf("the extension's manifest.json: %w", err)
	}
	bg, ok := m["background"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the extension's manifest.json has no background")
	}
	worker, ok := bg["service_worker"].(string)
	if !ok || worker == "" {
		return nil, fmt.Errorf("the extension's manifest.json has no background.service_worker")
	}
	delete(bg, "service_worker")
	bg["scripts"] = []any{worker}
	if bg["type"] != "module" {
		return nil, fmt.Errorf("the extension's background is not a module (\"type\": \"module\"), which the Firefox packaging assumes")
	}
	delete(m, "key")
	delete(m, "minimum_chrome_version")
	if sp, ok := m["side_panel"].(map[string]any); ok {
		delete(m, "side_panel")
		sidebar := map[string]any{"default_panel": sp["default_path"]}
		if a, ok := m["action"].(map[string]any); ok {
			for _, k := range []string{"default_title", "default_icon"} {
				if v, ok := a[k]; ok {
					sidebar[k] = v
				}
			}
		}
		m["sidebar_action"] = sidebar
	}
	if perms, ok := m["permissions"].([]any); ok {
		m["permissions"] = slices.DeleteFunc(slices.Clone(perms), func(p any) bool { return p == "sidePanel" })
	}
	m["browser_specific_settings"] = map[string]any{
		"gecko": map[string]any{
			"id":                 protocol.FirefoxAddonID,
			"strict_min_version": MinVersion,
			// The bridge collects nothing and sends nothing off the
			// machine (addons.mozilla.org requires the declaration of new
			// add-ons).
			"data_collection_permissions": map[string]any{"required": []any{"none"}},
		},
		"gecko_android": map[string]any{"strict_min_version": MinAndroidVersion},
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // "<all_urls>" as it is
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Build writes into dst (created; it must not exist or be empty) the
// extension of the folder src with Firefox's manifest: the files a browser
// loads (internal/extfiles: not the Node tests, node_modules or hidden
// files).
func Build(src, dst string) error {
	if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: give a new folder", dst)
	}
	files, err := extfiles.Read(src, Manifest)
	if err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dst, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
