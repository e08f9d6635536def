package installer

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/cliflag"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// installOpts are what install and uninstall were asked.
type installOpts struct {
	name       string   // "install" or "uninstall"
	args       []string // as given, for a copy that runs in its place
	dirs       []string // --user-data-dir, absolute
	browsers   []string // --browser
	noBrowsers bool
	firefox    bool // the install registered the host for Firefox
	// extensionIDs are the IDs allowed_origins lists beside the fixed
	// one: --extension-id and, with --prefix, the record's.
	extensionIDs []string
	stdout       io.Writer
	stderr       io.Writer
}

func (o *installOpts) errorf(format string, args ...any) {
	say(o.stderr, "webmcp-host "+o.name+": "+format, args...)
}

// Run runs `webmcp-host install` (name "install") or `webmcp-host
// uninstall` (name "uninstall") with args, the arguments after the name,
// and returns the exit code: 0, 1 when it failed, 2 for a usage error. With
// --prefix, the whole install: copy this binary, the webmcp-shim beside it
// and the extension's folder into the prefix, keep the install record,
// register the host with the browsers and print the next steps (install.sh
// and install.ps1 run this), or remove what the record lists. Without, only
// the registration of this binary where it is (for `go install`).
func Run(name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webmcp-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs, browsers, ids cliflag.Strings
	fs.Var(&dirs, "user-data-dir", "also (un)register for a browser started with --user-data-dir=`DIR` (repeatable; on Windows the registry serves every profile: nothing is written there)")
	noBrowsers := fs.Bool("no-browsers", false, "skip the browsers' own user-level manifest folders (Windows: registry keys)")
	record := fs.String("record", "", "the install record `FILE`: install adds what it wrote, uninstall removes what it lists")
	prefix := fs.String("prefix", "", "the install in `DIR`: install copies this binary, the webmcp-shim beside it and the extension (and the Firefox add-on made from it) into DIR/bin and DIR/share/webmcp-bridge, with the record there; uninstall removes it")
	var extension *string
	if name == "install" {
		fs.Var(&browsers, "browser", "register for browser `KEY` even if it does not seem installed (repeatable; "+strings.Join(browserKeys(), ", ")+")")
		extension = fs.String("extension", "", "with --prefix: the extension's `DIR` to copy (default: the folder extension beside this binary)")
		fs.Var(&ids, "extension-id", "with --prefix: also let the extension of `ID` start the host (32 letters a-p: the ID a store gave the extension, beside the unpacked one; repeatable; kept in the install record, so a reinstall and doctor keep it)")
	}
	fs.Usage = func() {
		if name == "install" {
			fmt.Fprintf(stderr, "Usage: webmcp-host install [--prefix DIR [--extension DIR]] [--user-data-dir DIR]...\n                           [--browser KEY]... [--no-browsers] [--record FILE]\n                           [--extension-id ID]...\n\n")
			fmt.Fprintf(stderr, "Registers this binary with every supported browser installed on this system\n(%s in its native-messaging folder; on Windows, the\nregistry value HKCU\\Software\\VENDOR\\NativeMessagingHosts\\%s\nnaming that file; Firefox's, in ~/.mozilla/native-messaging-hosts on Linux,\nlists the add-on %s in allowed_extensions) and with each\n--user-data-dir. With --prefix, installs first: copies this binary, the\nwebmcp-shim beside it and the extension into the prefix, registers the copy,\nkeeps the install record, and prints the next steps.\n\n", manifest.FileName, protocol.HostName, protocol.FirefoxAddonID)
		} else {
			fmt.Fprintf(stderr, "Usage: webmcp-host uninstall [--prefix DIR | --record FILE] [--user-data-dir DIR]...\n                             [--no-browsers]\n\n")
			fmt.Fprintf(stderr, "Removes what the install record lists, as far as it names the install's own\nplaces (its binaries, the extension's folder, manifests and registry values\nthat name its host, the folders and keys it made once emptied; never through\na symbolic link), stops your hosts and shims that run its binaries, and\nremoves the HTTP token and the empty runtime folder. Without a record,\nremoves the manifests that name this binary.\n\n")
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	o := &installOpts{name: name, args: args, browsers: browsers, noBrowsers: *noBrowsers, stdout: stdout, stderr: stderr}
	if fs.NArg() > 0 {
		o.errorf("unexpected argument %q", fs.Arg(0))
		return 2
	}
	if *prefix != "" && *record != "" {
		o.errorf("give --prefix or --record, not both: the record of an install is PREFIX/share/webmcp-bridge/%s", installrec.FileName)
		return 2
	}
	if extension != nil && *extension != "" && *prefix == "" {
		o.errorf("--extension goes with --prefix")
		return 2
	}
	if len(ids) > 0 && *prefix == "" {
		o.errorf("--extension-id goes with --prefix: the host reads the IDs it accepts from the install's record, PREFIX/share/webmcp-bridge/%s", installrec.FileName)
		return 2
	}
	for _, id := range ids {
		if err := manifest.CheckExtensionID(id); err != nil {
			o.errorf("--extension-id: %v", err)
			return 2
		}
		if !slices.Contains(o.extensionIDs, id) && id != protocol.ExtensionID {
			o.extensionIDs = append(o.extensionIDs, id)
		}
	}
	for _, b := range browsers {
		if !slices.Contains(browserKeys(), b) {
			o.errorf("unknown browser %q: want one of %s", b, strings.Join(browserKeys(), ", "))
			return 2
		}
	}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			o.errorf("%v", err)
			return 1
		}
		o.dirs = append(o.dirs, abs)
	}
	self, err := selfPath()
	if err != nil {
		o.errorf("cannot find this binary's path: %v", err)
		return 1
	}
	if *prefix != "" {
		p, err := filepath.Abs(*prefix)
		if err != nil {
			o.errorf("%v", err)
			return 1
		}
		if name == "uninstall" {
			return uninstallPrefix(o, p, self)
		}
		return installPrefix(o, p, *extension, self)
	}

	if !o.noBrowsers && len(o.locations()) == 0 && len(o.dirs) == 0 && *record == "" {
		o.errorf("nothing to do on %s: give --user-data-dir DIR", runtime.GOOS)
		return 2
	}
	if o.noBrowsers && len(o.dirs) == 0 && *record == "" {
		o.errorf("nothing to do with --no-browsers: give --user-data-dir DIR")
		return 2
	}
	var rec *installrec.Record
	var hasRecord bool
	if *record != "" {
		abs, _ := filepath.Abs(*record)
		if rec, hasRecord, err = installrec.Load(abs); err != nil {
			o.errorf("%v", err)
			return 1
		}
	}
	if name == "uninstall" {
		return uninstall(rec, hasRecord, self, o.uninstallLocations(), stdout, stderr)
	}
	// A binary registered where it is, on Windows: the manifest in a
	// folder of the bridge's own.
	mdir := filepath.Join(os.Getenv("LOCALAPPDATA"), "webmcp-bridge", "NativeMessagingHosts")
	if code := o.register(self, rec, mdir); code != 0 {
		return code
	}
	if rec != nil {
		if err := rec.Save(); err != nil {
			o.errorf("write the install record: %v", err)
			return 1
		}
	}
	return 0
}

// locations are the user-level manifest locations of the browsers of this
// system (registry keys on Windows), none with --no-browsers.
func (o *installOpts) locations() []manifest.Location {
	if o.noBrowsers {
		return nil
	}
	if runtime.GOOS == "windows" {
		return manifest.WindowsLocations()
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	return manifest.Locations(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME"))
}

// uninstallLocations are the places where uninstall looks for manifests
// that name this binary: the browsers' and the --user-data-dir ones (none
// on Windows, where the registry serves every profile).
func (o *installOpts) uninstallLocations() []manifest.Location {
	locs := o.locations()
	if runtime.GOOS != "windows" {
		for _, d := range o.dirs {
			locs = append(locs, manifest.UserDataDir(d))
		}
	}
	return locs
}

// system is what manifest.Installed looks at here.
func system() manifest.System {
	if runtime.GOOS == "windows" {
		return manifest.WindowsSystem()
	}
	home, _ := os.UserHomeDir()
	return manifest.System{GOOS: runtime.GOOS, Home: home, LookPath: exec.LookPath}
}

// register writes the manifest that names host for the browsers installed
// (or asked for) and each --user-data-dir, says what it did, and adds it to
// rec when not nil. On Windows the manifest goes into winDir and the
// registry keys of the browsers name it.
func (o *installOpts) register(host string, rec *installrec.Record, winDir string) int {
	sys := system()
	var chosen []manifest.Location
	var found, skipped []string
	for _, l := range o.locations() {
		if slices.Contains(o.browsers, l.Key) || manifest.Installed(l, sys) {
			chosen = append(chosen, l)
			found = append(found, l.Browser)
		} else {
			skipped = append(skipped, l.Browser)
		}
	}
	if !o.noBrowsers {
		if len(found) > 0 {
			say(o.stdout, "browsers found: %s", strings.Join(found, ", "))
		} else {
			say(o.stdout, "no supported browser found (%s)", strings.Join(browserKeys(), ", "))
		}
		if len(skipped) > 0 {
			say(o.stdout, "skipped, not installed: %s (--browser KEY registers one anyway)", strings.Join(skipped, ", "))
		}
	}
	if !filepath.IsAbs(host) {
		o.errorf("host path %q is not absolute", host)
		return 1
	}
	o.firefox = slices.ContainsFunc(chosen, func(l manifest.Location) bool { return l.Firefox })
	if runtime.GOOS == "windows" {
		return o.registerWindows(host, chosen, rec, winDir)
	}
	for _, d := range o.dirs {
		chosen = append(chosen, manifest.UserDataDir(d))
	}
	for _, l := range chosen {
		m, _ := manifest.For(l, host, o.extensionIDs...)
		if code := o.writeManifest(m, l.Dir, l.Browser, rec); code != 0 {
			return code
		}
	}
	if len(chosen) == 0 {
		say(o.stdout, "no manifest written: install a browser (or give --browser KEY or --user-data-dir DIR) and run the install again")
		return 0
	}
	o.sayAllowed(host, chosen)
	return 0
}

// sayAllowed says which extensions may start host now: the extension's ID,
// and with Firefox among the browsers the add-on's ID.
func (o *installOpts) sayAllowed(host string, chosen []manifest.Location) {
	if slices.ContainsFunc(chosen, func(l manifest.Location) bool { return !l.Firefox }) {
		say(o.stdout, "extension ID %s may start %s", protocol.ExtensionID, host)
		for _, id := range o.extensionIDs {
			say(o.stdout, "extension ID %s may start %s (--extension-id; kept in the install record)", id, host)
		}
	}
	if slices.ContainsFunc(chosen, func(l manifest.Location) bool { return l.Firefox }) {
		say(o.stdout, "Firefox add-on %s may start %s", protocol.FirefoxAddonID, host)
	}
}

// writeManifest writes m into dir, says so, and notes it in rec.
func (o *installOpts) writeManifest(m manifest.Manifest, dir, note string, rec *installrec.Record) int {
	created := installrec.CreatedDirs(dir)
	old, readErr := manifest.Read(dir)
	path, err := manifest.Write(m, dir)
	if err != nil {
		o.errorf("%s: %v", note, err)
		return 1
	}
	if readErr == nil && old.Same(m) {
		say(o.stdout, "unchanged %s (%s)", path, note)
	} else {
		say(o.stdout, "wrote %s (%s)", path, note)
	}
	if rec != nil {
		for _, d := range created {
			rec.Add(installrec.Entry{Kind: installrec.Dir, Path: d})
		}
		rec.Add(installrec.Entry{Kind: installrec.Manifest, Path: path, Note: note})
	}
	return 0
}

// registerWindows writes the manifest that names host into dir (Firefox's
// into [firefoxDir] of dir) and points the registry keys of the chosen
// browsers at it. A --user-data-dir needs nothing of its own on Windows:
// Chrome, Edge, Brave and Chromium read the registry for every profile
// (see manifest.ChromeRegKey), and so does Firefox.
func (o *installOpts) registerWindows(host string, chosen []manifest.Location, rec *installrec.Record, dir string) int {
	if len(o.dirs) > 0 {
		say(o.stdout, "--user-data-dir %s: nothing to write there: on Windows the browsers find the host through the registry, for every profile and --user-data-dir", strings.Join(o.dirs, ", "))
		if !slices.ContainsFunc(chosen, func(l manifest.Location) bool { return slices.Contains(l.RegKeys, manifest.ChromeRegKey) }) {
			// Chrome's key, which Chromium builds read as well.
			for _, l := range manifest.WindowsLocations() {
				if l.Key == "chrome" {
					l.Browser = "Chrome, for --user-data-dir"
					chosen = append(chosen, l)
				}
			}
		}
	}
	if len(chosen) == 0 {
		say(o.stdout, "no manifest written: install a browser (or give --browser KEY) and run the install again")
		return 0
	}
	if dir == "" || !filepath.IsAbs(dir) {
		o.errorf("no folder for the manifest (is %%LOCALAPPDATA%% set?): give --prefix DIR")
		return 1
	}
	// Chromium browsers' manifest, then Firefox's: each in its folder,
	// named by the keys of its browsers.
	for _, firefox := range []bool{false, true} {
		var group []manifest.Location
		for _, l := range chosen {
			if l.Firefox == firefox {
				group = append(group, l)
			}
		}
		if len(group) == 0 {
			continue
		}
		mdir, note := dir, "the registry values name it"
		if firefox {
			mdir, note = firefoxDir(dir), "Firefox's registry value names it"
		}
		m, _ := manifest.For(group[0], host, o.extensionIDs...)
		if code := o.writeRegistered(m, mdir, note, group, rec); code != 0 {
			return code
		}
	}
	o.sayAllowed(host, chosen)
	return 0
}

// firefoxDir is where the install keeps Firefox's manifest on Windows, given
// the folder of the others' (PREFIX\share\webmcp-bridge\NativeMessagingHosts):
// PREFIX\share\webmcp-bridge\firefox\NativeMessagingHosts.
func firefoxDir(dir string) string {
	return filepath.Join(filepath.Dir(dir), "firefox", "NativeMessagingHosts")
}

// writeRegistered writes m into dir and points the registry keys that the
// browsers chosen read at it, saying so, and notes it all in rec.
func (o *installOpts) writeRegistered(m manifest.Manifest, dir, manifestNote string, chosen []manifest.Location, rec *installrec.Record) int {
	if code := o.writeManifest(m, dir, manifestNote, rec); code != 0 {
		return code
	}
	path := filepath.Join(dir, manifest.FileName)
	// Each key once, with the browsers that read it.
	var keys []string
	readers := map[string][]string{}
	for _, l := range chosen {
		for _, k := range l.RegKeys {
			if _, ok := readers[k]; !ok {
				keys = append(keys, k)
			}
			readers[k] = append(readers[k], l.Browser)
		}
	}
	for _, k := range keys {
		hk := manifest.HostKey(k)
		note := strings.Join(readers[k], ", ")
		old, err := manifest.ReadRegistry(hk)
		switch {
		case err == nil && strings.EqualFold(old, path):
			say(o.stdout, "unchanged %s%s (%s)", installrec.RegRoot, hk, note)
		default:
			created, err := manifest.WriteRegistry(hk, path)
			if rec != nil {
				for _, c := range created {
					if c != hk {
						rec.Add(installrec.Entry{Kind: installrec.RegKey, Path: installrec.RegRoot + c})
					}
				}
			}
			if err != nil {
				o.errorf("%s: %v", note, err)
				return 1
			}
			if old != "" {
				say(o.stdout, "wrote %s%s (%s; it named %s)", installrec.RegRoot, hk, note, old)
			} else {
				say(o.stdout, "wrote %s%s (%s)", installrec.RegRoot, hk, note)
			}
		}
		if rec != nil {
			rec.Add(installrec.Entry{Kind: installrec.RegValue, Path: installrec.RegRoot + hk, Note: note})
		}
	}
	return 0
}

// browserKeys are the names --browser takes.
func browserKeys() []string {
	var keys []string
	for _, l := range manifest.Locations("darwin", "/", "") {
		keys = append(keys, l.Key)
	}
	return keys
}

// selfPath is this binary's absolute path, symlinks resolved.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	return self, err
}

// samePath says whether a and b name the same path (without case on
// Windows).
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// present says whether path exists (a link counts).
func present(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
