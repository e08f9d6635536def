package manifest

import (
	"path/filepath"
	"strings"
)

// Location is a folder where a browser looks for user-level
// native-messaging manifests.
type Location struct {
	Browser string // "Chrome", "Chromium", …
	Key     string // "chrome", "chromium", … (install.sh --browser KEY); "" for a --user-data-dir
	Dir     string // the NativeMessagingHosts folder; "" on Windows
	// RegKeys are, on Windows, the registry keys (below HKEY_CURRENT_USER)
	// whose default value names the manifest: see [WindowsLocations].
	RegKeys []string
	// Firefox is set for Firefox, whose manifest lists the add-on's ID in
	// allowed_extensions (see [For]).
	Firefox bool
}

// UserDataDir is the manifest folder inside a browser profile started with
// --user-data-dir=dir.
func UserDataDir(dir string) Location {
	return Location{Browser: "--user-data-dir " + dir, Dir: filepath.Join(dir, "NativeMessagingHosts")}
}

// Locations returns the user-level manifest folders of every supported
// browser on goos ("linux" or "darwin"), for a user whose home is home and
// whose $XDG_CONFIG_HOME is xdgConfig (empty means ~/.config). Other systems
// have none: Windows has registry keys instead ([WindowsLocations]).
//
// Firefox comes last: its folder is ~/.mozilla/native-messaging-hosts on
// Linux (not below $XDG_CONFIG_HOME) and
// ~/Library/Application Support/Mozilla/NativeMessagingHosts on macOS.
func Locations(goos, home, xdgConfig string) []Location {
	type browser struct{ name, linux, darwin string }
	// The keys are the names in lower case with hyphens.
	browsers := []browser{
		{"Chrome", "google-chrome", "Google/Chrome"},
		{"Chrome Beta", "google-chrome-beta", "Google/Chrome Beta"},
		{"Chrome Dev", "google-chrome-unstable", "Google/Chrome Dev"},
		{"Chrome Canary", "", "Google/Chrome Canary"},
		{"Chrome for Testing", "google-chrome-for-testing", "Google/Chrome for Testing"},
		{"Chromium", "chromium", "Chromium"},
		{"Edge", "microsoft-edge", "Microsoft Edge"},
		{"Brave", "BraveSoftware/Brave-Browser", "BraveSoftware/Brave-Browser"},
	}
	var base string
	switch goos {
	case "linux":
		base = xdgConfig
		if base == "" {
			base = filepath.Join(home, ".config")
		}
	case "darwin":
		base = filepath.Join(home, "Library", "Application Support")
	default:
		return nil
	}
	var out []Location
	for _, b := range browsers {
		rel := b.linux
		if goos == "darwin" {
			rel = b.darwin
		}
		if rel == "" {
			continue
		}
		out = append(out, Location{Browser: b.name, Key: strings.ToLower(strings.ReplaceAll(b.name, " ", "-")), Dir: filepath.Join(base, filepath.FromSlash(rel), "NativeMessagingHosts")})
	}
	firefox := filepath.Join(home, ".mozilla", "native-messaging-hosts")
	if goos == "darwin" {
		firefox = filepath.Join(base, "Mozilla", "NativeMessagingHosts")
	}
	return append(out, Location{Browser: "Firefox", Key: "firefox", Dir: firefox, Firefox: true})
}
