// Package manifest writes and removes the native-messaging manifest that
// lets the bridge extension start webmcp-host, in the user-level locations
// of each supported browser and in any --user-data-dir.
//
// Chrome looks for a host named [protocol.HostName] in a file
// "<dir>/dev.webmcp.bridge.json"; the file names the host binary by absolute
// path and lists the extension origins allowed to start it. Firefox's
// manifest has the same name and fields, except that it lists the add-on's
// ID in allowed_extensions instead ([NewFirefox]). An install may list
// more extension origins: the IDs a store gave the extension ([New]).
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/webmcp-bridge/bridge/protocol"
)

// FileName is the manifest's file name in a NativeMessagingHosts folder.
const FileName = protocol.HostName + ".json"

// Manifest is a native-messaging host manifest.
type Manifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`                      // absolute path of webmcp-host
	Type           string   `json:"type"`                      // always "stdio"
	AllowedOrigins []string `json:"allowed_origins,omitempty"` // Chromium browsers
	// AllowedExtensions are the add-on IDs that may start the host
	// (Firefox).
	AllowedExtensions []string `json:"allowed_extensions,omitempty"`
}

// description is the manifest's description.
const description = "WebMCP bridge: relays WebMCP tools and UI context between the browser and local AI agents"

// New returns the bridge's manifest for the host binary at hostPath, which
// must be absolute (Chrome resolves a relative path against the manifest's
// folder, which is never what an installer means). Its allowed_origins
// list the extension's fixed ID ([protocol.ExtensionID], the unpacked one)
// and then each of extraIDs, the IDs a store gave the extension (each
// valid: [CheckExtensionID]), once.
func New(hostPath string, extraIDs ...string) (Manifest, error) {
	if !filepath.IsAbs(hostPath) {
		return Manifest{}, fmt.Errorf("host path %q is not absolute", hostPath)
	}
	origins := []string{protocol.ExtensionOrigin}
	for _, id := range extraIDs {
		if err := CheckExtensionID(id); err != nil {
			return Manifest{}, err
		}
		if o := Origin(id); !slices.Contains(origins, o) {
			origins = append(origins, o)
		}
	}
	return Manifest{
		Name:           protocol.HostName,
		Description:    description,
		Path:           hostPath,
		Type:           "stdio",
		AllowedOrigins: origins,
	}, nil
}

// CheckExtensionID says why id is not a Chromium extension ID: 32
// letters a to p (a store's ID, as chrome://extensions shows it).
func CheckExtensionID(id string) error {
	ok := len(id) == 32
	for _, r := range id {
		ok = ok && r >= 'a' && r <= 'p'
	}
	if !ok {
		return fmt.Errorf("%q is not an extension ID: an ID is 32 letters a to p, as chrome://extensions shows it under the extension's name (turn on Developer mode)", id)
	}
	return nil
}

// Origin is the origin that Chromium browsers pass for the extension of
// ID id, as allowed_origins lists it: chrome-extension://ID/.
func Origin(id string) string {
	return "chrome-extension://" + id + "/"
}

// MissingIDs are those of ids whose origin m's allowed_origins lack.
func (m Manifest) MissingIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(m.AllowedOrigins, Origin(id)) {
			out = append(out, id)
		}
	}
	return out
}

// NewFirefox returns the bridge's manifest for Firefox: the same as [New]'s
// but with the add-on's ID ([protocol.FirefoxAddonID]) in allowed_extensions
// instead of allowed_origins.
func NewFirefox(hostPath string) (Manifest, error) {
	m, err := New(hostPath)
	m.AllowedOrigins = nil
	if err == nil {
		m.AllowedExtensions = []string{protocol.FirefoxAddonID}
	}
	return m, err
}

// For returns the bridge's manifest for the browser of l: [NewFirefox]'s
// for Firefox, [New]'s with extraIDs for the others.
func For(l Location, hostPath string, extraIDs ...string) (Manifest, error) {
	if l.Firefox {
		return NewFirefox(hostPath)
	}
	return New(hostPath, extraIDs...)
}

// Allows says whether m lets the bridge start its host: in Firefox
// (firefox) its add-on ID is in allowed_extensions, in the others its
// origin in allowed_origins.
func (m Manifest) Allows(firefox bool) bool {
	if firefox {
		return slices.Contains(m.AllowedExtensions, protocol.FirefoxAddonID)
	}
	return slices.Contains(m.AllowedOrigins, protocol.ExtensionOrigin)
}

// Same says whether m and o are the same manifest.
func (m Manifest) Same(o Manifest) bool {
	return m.Name == o.Name && m.Description == o.Description && m.Path == o.Path && m.Type == o.Type &&
		slices.Equal(m.AllowedOrigins, o.AllowedOrigins) && slices.Equal(m.AllowedExtensions, o.AllowedExtensions)
}

// Write writes m into dir (creating it) as FileName, and returns the file's
// path. Writing the same manifest again changes nothing.
func Write(m Manifest, dir string) (string, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return path, nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// Remove deletes the manifest from dir, and dir itself when that leaves it
// empty. It reports whether there was a manifest to remove.
func Remove(dir string) (bool, error) {
	err := os.Remove(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	os.Remove(dir) // only succeeds when empty
	return true, nil
}

// Read reads the manifest in dir.
func Read(dir string) (Manifest, error) {
	return ReadFile(filepath.Join(dir, FileName))
}

// ReadFile reads the manifest at path (on Windows, a registry value names
// it).
func ReadFile(path string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
