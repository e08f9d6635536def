package cli

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// checkRegistry checks, on Windows, the registry values through which the
// browsers find the host (HKCU\Software\VENDOR\NativeMessagingHosts\
// dev.webmcp.bridge), those that the install record lists and those of
// every installed browser, and the manifest each one names: it must be
// there, allow the extension and name an existing webmcp-host.exe, this
// install's.
func (d *doctor) checkRegistry(host string, rec *installrec.Record, dirs []string) {
	type want struct {
		key       string   // the host's key, below HKCU
		browsers  []string // that read it
		installed bool
		required  bool // the install wrote it
	}
	var keys []*want
	byKey := map[string]*want{}
	add := func(k string) *want {
		if w, ok := byKey[strings.ToLower(k)]; ok {
			return w
		}
		w := &want{key: k}
		byKey[strings.ToLower(k)] = w
		keys = append(keys, w)
		return w
	}
	sys := manifest.WindowsSystem()
	for _, l := range manifest.WindowsLocations() {
		in := manifest.Installed(l, sys)
		for _, k := range l.RegKeys {
			w := add(manifest.HostKey(k))
			w.browsers = append(w.browsers, l.Browser)
			w.installed = w.installed || in
		}
	}
	if rec != nil {
		for _, e := range rec.Of(installrec.RegValue) {
			w := add(strings.TrimPrefix(e.Path, installrec.RegRoot))
			w.required = true
			if len(w.browsers) == 0 {
				w.browsers = []string{e.Note}
			}
		}
	}
	if len(dirs) > 0 {
		d.info(LinkManifest, "--user-data-dir: on Windows the browsers find the host through the registry, for every profile: the values below serve %s too", strings.Join(dirs, ", "))
	}
	found, before := 0, d.report.Problems
	var unregistered []string
	for _, w := range keys {
		label := strings.Join(w.browsers, ", ")
		value := installrec.RegRoot + w.key
		path, err := manifest.ReadRegistry(w.key)
		if errors.Is(err, iofs.ErrNotExist) {
			switch {
			case w.required:
				d.problem(LinkManifest, "%s: no registry value %s (the install wrote one), so the browser cannot find the host: run .\\install.ps1 again", label, value)
			case w.installed:
				unregistered = append(unregistered, label)
			}
			continue
		}
		found++
		if err != nil {
			d.problem(LinkManifest, "%s: %s is unreadable (%v): run .\\install.ps1 again", label, value, err)
			continue
		}
		if !filepath.IsAbs(path) {
			d.problem(LinkManifest, "%s: %s names %q, not an absolute path, which the browser refuses: run .\\install.ps1 again", label, value, path)
			continue
		}
		m, err := manifest.ReadFile(path)
		switch {
		case errors.Is(err, iofs.ErrNotExist):
			d.problem(LinkManifest, "%s: %s names %s, which is missing, so the browser cannot start the host: run .\\install.ps1 again", label, value, path)
		case err != nil:
			d.problem(LinkManifest, "%s: %s names %s, which is unreadable (%v): run .\\install.ps1 again", label, value, path, err)
		case !m.Allows(strings.EqualFold(w.key, manifest.HostKey(manifest.FirefoxRegKey))):
			d.problem(LinkManifest, "%s: %s %s: run .\\install.ps1 again", label, path, notAllowed(strings.EqualFold(w.key, manifest.HostKey(manifest.FirefoxRegKey))))
		case !filepath.IsAbs(m.Path):
			d.problem(LinkManifest, "%s: %s names %q, not an absolute path: run .\\install.ps1 again", label, path, m.Path)
		case !program(m.Path):
			d.problem(LinkManifest, "%s: %s names %s, which is not an existing .exe: run .\\install.ps1 again", label, path, m.Path)
		case host != "" && !sameFile(m.Path, host):
			d.problem(LinkManifest, "%s: %s (through %s) names %s, not the webmcp-host of this install (%s): run .\\install.ps1 again (of the install you use)", label, path, value, m.Path, host)
		default:
			d.ok(LinkManifest, "%s: the browser may start %s (%s names %s)", label, m.Path, value, path)
		}
	}
	if found == 0 && d.report.Problems == before {
		d.problem(LinkManifest, "no registry value HKCU\\Software\\...\\NativeMessagingHosts\\%s for any browser, so no browser can start the host: run .\\install.ps1", protocol.HostName)
	}
	if len(unregistered) > 0 {
		d.info(LinkManifest, "installed but not registered: %s (.\\install.ps1 registers every installed browser; --browser KEY forces one)", strings.Join(unregistered, "; "))
	}
}

// program says whether path is a Windows program: an existing file whose
// name ends in .exe.
func program(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".exe")
}
