package manifest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/webmcp-bridge/bridge/protocol"
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
	// FirefoxRegKey is Firefox's (Mozilla's "Native manifests"): its
	// value names a manifest with allowed_extensions, not Chrome's.
	FirefoxRegKey = `Software\Mozilla\NativeMessagingHosts`
)

// HostKey is the key of the bridge's host below regKey, one of the keys
// above: its default value names the manifest.
func HostKey(regKey string) string { return regKey + `\` + protocol.HostName }

// windowsBrowsers are the browsers on Windows: their keys, the folder below
// %LOCALAPPDATA% that shows they have run, and their program's path below
// %LOCALAPPDATA% (a per-user install) or the program folders.
var windowsBrowsers = []struct {
	name    string
	regKeys []string
	data    string // below %LOCALAPPDATA% (with /)
	program string // below %LOCALAPPDATA%, %ProgramFiles%, %ProgramFiles(x86)% (with /)
	firefox bool
}{
	{"Chrome", []string{ChromeRegKey}, "Google/Chrome/User Data", "Google/Chrome/Application/chrome.exe", false},
	{"Chrome Beta", []string{ChromeRegKey}, "Google/Chrome Beta/User Data", "Google/Chrome Beta/Application/chrome.exe", false},
	{"Chrome Dev", []string{ChromeRegKey}, "Google/Chrome Dev/User Data", "Google/Chrome Dev/Application/chrome.exe", false},
	{"Chrome Canary", []string{ChromeRegKey}, "Google/Chrome SxS/User Data", "Google/Chrome SxS/Application/chrome.exe", false},
	{"Chrome for Testing", []string{ChromeRegKey}, "Google/Chrome for Testing/User Data", "Google/Chrome for Testing/Application/chrome.exe", false},
	{"Chromium", []string{ChromiumRegKey}, "Chromium/User Data", "Chromium/Application/chrome.exe", false},
	{"Edge", []string{EdgeRegKey}, "Microsoft/Edge/User Data", "Microsoft/Edge/Application/msedge.exe", false},
	// Brave reads its own key; it is reported to read Chrome's as well.
	{"Brave", []string{BraveRegKey, ChromeRegKey}, "BraveSoftware/Brave-Browser/User Data", "BraveSoftware/Brave-Browser/Application/brave.exe", false},
	// Firefox keeps its profiles' caches in %LOCALAPPDATA%\Mozilla\Firefox.
	{"Firefox", []string{FirefoxRegKey}, "Mozilla/Firefox", "Mozilla Firefox/firefox.exe", true},
}

// WindowsLocations returns the supported browsers on Windows, with the
// registry keys each one reads (Dir is empty: the install keeps its
// manifests, Firefox's and the others', in folders of its own).
func WindowsLocations() []Location {
	var out []Location
	for _, b := range windowsBrowsers {
		out = append(out, Location{Browser: b.name, Key: strings.ToLower(strings.ReplaceAll(b.name, " ", "-")), RegKeys: b.regKeys, Firefox: b.firefox})
	}
	return out
}

// installedWindows says whether the browser of l is installed: its data
// folder below %LOCALAPPDATA% (VENDOR\BROWSER\User Data; for Firefox
// Mozilla\Firefox) exists, which means it has run, or its program
// (VENDOR\BROWSER\Application\EXE; Mozilla Firefox\firefox.exe) is below
// %LOCALAPPDATA% or a program folder.
func installedWindows(l Location, sys System) bool {
	for _, b := range windowsBrowsers {
		if !strings.EqualFold(b.name, l.Browser) {
			continue
		}
		var roots []string
		if sys.LocalAppData != "" {
			if isDir(filepath.Join(sys.LocalAppData, filepath.FromSlash(b.data))) {
				return true
			}
			roots = append(roots, sys.LocalAppData)
		}
		roots = append(roots, sys.ProgramFiles...)
		for _, r := range roots {
			if fi, err := os.Stat(filepath.Join(r, filepath.FromSlash(b.program))); err == nil && fi.Mode().IsRegular() {
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
