package manifest

import (
	"os"
	"path/filepath"
)

// Which browsers a user has: their commands on Linux and their app bundles
// on macOS, by Location.Key.
var (
	linuxCommands = map[string][]string{
		"chrome":             {"google-chrome", "google-chrome-stable"},
		"chrome-beta":        {"google-chrome-beta"},
		"chrome-dev":         {"google-chrome-unstable"},
		"chrome-for-testing": {"chrome-for-testing", "google-chrome-for-testing"},
		"chromium":           {"chromium", "chromium-browser"},
		"edge":               {"microsoft-edge", "microsoft-edge-stable", "microsoft-edge-beta", "microsoft-edge-dev"},
		"brave":              {"brave-browser", "brave"},
		"firefox":            {"firefox", "firefox-esr"},
	}
	darwinApps = map[string]string{
		"chrome":             "Google Chrome.app",
		"chrome-beta":        "Google Chrome Beta.app",
		"chrome-dev":         "Google Chrome Dev.app",
		"chrome-canary":      "Google Chrome Canary.app",
		"chrome-for-testing": "Google Chrome for Testing.app",
		"chromium":           "Chromium.app",
		"edge":               "Microsoft Edge.app",
		"brave":              "Brave Browser.app",
		"firefox":            "Firefox.app",
	}
)

// System is what Installed looks at, so that tests can fake it.
type System struct {
	GOOS string // "linux", "darwin" or "windows"
	Home string // the user's home
	// LookPath finds a command as exec.LookPath does.
	LookPath func(string) (string, error)
	// Roots are where macOS app bundles are looked for besides
	// ~/Applications; nil means /Applications.
	Roots []string
	// LocalAppData and ProgramFiles are, on Windows, %LOCALAPPDATA% and
	// the program folders (see [WindowsSystem]).
	LocalAppData string
	ProgramFiles []string
}

// Installed says whether the browser of l is installed for this user: its
// own config folder (the parent of the NativeMessagingHosts folder) exists,
// which means it has run, or its command is on PATH (Linux) or its app
// bundle is in /Applications or ~/Applications (macOS); on Windows, its
// user data folder or its program exists (see [WindowsSystem]). A
// --user-data-dir location always counts as installed.
func Installed(l Location, sys System) bool {
	if l.Key == "" {
		return true
	}
	if sys.GOOS == "windows" {
		return installedWindows(l, sys)
	}
	if fi, err := os.Stat(filepath.Dir(l.Dir)); err == nil && fi.IsDir() {
		return true
	}
	switch sys.GOOS {
	case "linux":
		if sys.LookPath == nil {
			return false
		}
		for _, c := range linuxCommands[l.Key] {
			if _, err := sys.LookPath(c); err == nil {
				return true
			}
		}
	case "darwin":
		app, ok := darwinApps[l.Key]
		if !ok {
			return false
		}
		roots := sys.Roots
		if roots == nil {
			roots = []string{"/Applications"}
		}
		roots = append(roots, filepath.Join(sys.Home, "Applications"))
		for _, r := range roots {
			if fi, err := os.Stat(filepath.Join(r, app)); err == nil && fi.IsDir() {
				return true
			}
		}
	}
	return false
}
