package manifest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/webmcp-bridge/bridge/webmcp"
)

// Registry keys (below HKEY_CURRENT_USER) of the browsers' native-messaging
// hosts on Windows; the host's key is KEY\dev.webmcp.bridge, and its default
// value is the manifest's absolute path.
//
// Chromium's source (chrome/browser/extensions/api/messaging/
// native_process_launcher_win.cc) reads one fixed key,
// SOFTWARE\Google\Chrome\NativeMessagingHosts, in HKEY_CURRENT_USER then
// HKEY_LOCAL_MACHINE, for every Google Chrome build: Beta, Dev and Canary
// have no key of their own. A Chromium-branded build reads
// SOFTWARE\Chromium\NativeMessagingHosts first, then Chrome's. Windows has
// no manifest folder, in a --user-data-dir or anywhere else: the registry
// serves every profile of the user.
const (
	ChromeRegKey   = `Software\Google\Chrome\NativeMessagingHosts`
	ChromiumRegKey = `Software\Chromium\NativeMessagingHosts`
	EdgeRegKey     = `Software\Microsoft\Edge\NativeMessagingHosts`
	BraveRegKey    = `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts`
)

// HostKey is the key of the bridge's host below regKey, one of the keys
// above: its default value names the manifest.
func HostKey(regKey string) string { return regKey + `\` + webmcp.HostName }

// windowsBrowsers are the browsers on Windows: their keys, and the folder
// below %LOCALAPPDATA% (user data) and below the program folders
// (Application\EXE) that shows they are installed.
var windowsBrowsers = []struct {
	name    string
	regKeys []string
	dir     string // below %LOCALAPPDATA%, %ProgramFiles%, %ProgramFiles(x86)% (with /)
	exe     string
}{
	{"Chrome", []string{ChromeRegKey}, "Google/Chrome", "chrome.exe"},
	{"Chrome Beta", []string{ChromeRegKey}, "Google/Chrome Beta", "chrome.exe"},
	{"Chrome Dev", []string{ChromeRegKey}, "Google/Chrome Dev", "chrome.exe"},
	{"Chrome Canary", []string{ChromeRegKey}, "Google/Chrome SxS", "chrome.exe"},
	{"Chrome for Testing", []string{ChromeRegKey}, "Google/Chrome for Testing", "chrome.exe"},
	{"Chromium", []string{ChromiumRegKey}, "Chromium", "chrome.exe"},
	{"Edge", []string{EdgeRegKey}, "Microsoft/Edge", "msedge.exe"},
	// Brave reads its own key; it is reported to read Chrome's as well.
	{"Brave", []string{BraveRegKey, ChromeRegKey}, "BraveSoftware/Brave-Browser", "brave.exe"},
}

// WindowsLocations returns the supported browsers on Windows, with the
// registry keys each one reads (Dir is empty: the install keeps the one
// manifest in a folder of its own).
func WindowsLocations() []Location {
	var out []Location
	for _, b := range windowsBrowsers {
		out = append(out, Location{Browser: b.name, Key: strings.ToLower(strings.ReplaceAll(b.name, " ", "-")), RegKeys: b.regKeys})
	}
	return out
}

// installedWindows says whether the browser of l is installed: its user
// data folder (%LOCALAPPDATA%\VENDOR\BROWSER\User Data) exists, which means
// it has run, or its program (VENDOR\BROWSER\Application\EXE) is below
// %LOCALAPPDATA% or a program folder.
func installedWindows(l Location, sys System) bool {
	for _, b := range windowsBrowsers {
		if !strings.EqualFold(b.name, l.Browser) {
			continue
		}
		var roots []string
		if sys.LocalAppData != "" {
			if isDir(filepath.Join(sys.LocalAppData, filepath.FromSlash(b.dir), "User Data")) {
				return true
			}
			roots = append(roots, sys.LocalAppData)
		}
		roots = append(roots, sys.ProgramFiles...)
		for _, r := range roots {
			if fi, err := os.Stat(filepath.Join(r, filepath.FromSlash(b.dir), "Application", b.exe)); err == nil && fi.Mode().IsRegular() {
				return true
			}
		}
	}
	return false
}

// WindowsSystem is the System of this Windows user, from the environment:
// %LOCALAPPDATA%, %ProgramFiles%, %ProgramFiles(x86)% and %ProgramW6432%.
func WindowsSystem() System {
	sys := System{GOOS: "windows", LocalAppData: os.Getenv("LOCALAPPDATA")}
	for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432"} {
		if d := os.Getenv(v); d != "" && !containsFold(sys.ProgramFiles, d) {
			sys.ProgramFiles = append(sys.ProgramFiles, d)
		}
	}
	return sys
}

func containsFold(list []string, s string) bool {
	for _, e := range list {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
