package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/cliflag"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
)

func doctorCommand() *Command {
	return &Command{
		Name:    "doctor",
		Args:    "[--user-data-dir DIR]... [--json]",
		Summary: "check the installation, link by link, and say what to fix",
		Run:     runDoctor,
	}
}

// The links of the chain that doctor checks, in order.
const (
	LinkBinaries   = "binaries"    // webmcp-shim and its webmcp-host
	LinkManifest   = "manifest"    // the native-messaging manifests
	LinkRuntimeDir = "runtime-dir" // the private folder of the sockets
	LinkSocket     = "socket"      // each host socket answers
	LinkHost       = "host"        // a host speaks our protocol, its extension said hello
	LinkTools      = "tools"       // the pages' tools reach agents
)

// DoctorCheck is one line of doctor's report.
type DoctorCheck struct {
	Link    string `json:"link"`   // one of the Link constants
	Status  string `json:"status"` // "ok", "problem" or "info"
	Message string `json:"message"`
}

// DoctorJSON is what doctor --json prints.
type DoctorJSON struct {
	OK       bool          `json:"ok"`
	Problems int           `json:"problems"`
	Checks   []DoctorCheck `json:"checks"`
	// Causes are the likely causes, most likely first, when no host
	// answered.
	Causes []string `json:"causes,omitempty"`
}

// doctor is one run of checks; each check adds one line.
type doctor struct {
	out        io.Writer
	json       bool
	report     DoctorJSON
	reported   map[string]bool // sockets reported as not the user's
	extVersion string          // the installed extension folder's version
	firefox    bool            // a Firefox host manifest was found
	installCmd string          // the command that made the install, from its record
	// extensionIDs are the extension IDs the install lists beside the
	// fixed one (install --extension-id: a store's), from its record.
	extensionIDs []string
}

// installer is the command doctor's advice says to run: the one that made
// this install, as its record says (npx webmcp-bridge install after npm),
// else the script of this system's release archives and clones.
func (d *doctor) installer() string {
	if d.installCmd != "" {
		return d.installCmd
	}
	return installrec.DefaultInstaller()
}

// add reports a check; "{installer}" in format is the command that made
// the install (installer).
func (d *doctor) add(link, status, format string, args ...any) {
	format = strings.ReplaceAll(format, "{installer}", strings.ReplaceAll(d.installer(), "%", "%%"))
	c := DoctorCheck{Link: link, Status: status, Message: fmt.Sprintf(format, args...)}
	d.report.Checks = append(d.report.Checks, c)
	if status == "problem" {
		d.report.Problems++
	}
	if d.json {
		return
	}
	prefix := map[string]string{"ok": "ok       ", "problem": "PROBLEM  ", "info": "         "}[status]
	fmt.Fprintf(d.out, "%s%s\n", prefix, c.Message)
}

func (d *doctor) ok(link, format string, args ...any)      { d.add(link, "ok", format, args...) }
func (d *doctor) problem(link, format string, args ...any) { d.add(link, "problem", format, args...) }
func (d *doctor) info(link, format string, args ...any)    { d.add(link, "info", format, args...) }

func runDoctor(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("doctor")
	var dirs cliflag.Strings
	fs.Var(&dirs, "user-data-dir", "")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	d := &doctor{out: env.Stdout, json: *asJSON}
	host, rec := d.checkBinaries()
	if runtime.GOOS == "windows" {
		d.checkRegistry(host, rec, dirs)
	} else {
		d.checkManifests(host, rec, dirs)
	}
	if d.checkRuntimeDir() {
		if d.checkSockets(ctx) {
			d.checkHosts(ctx, env)
		}
	}
	return d.finish(env)
}

// checkBinaries checks this webmcp-shim's own webmcp-host, which the
// manifests should name, and returns its path ("" when this shim has none
// beside it, as under go run) and the install record, if any.
func (d *doctor) checkBinaries() (host string, rec *installrec.Record) {
	self, err := selfPath()
	if err != nil {
		d.info(LinkBinaries, "cannot tell where this webmcp-shim is (%v): the manifests are not compared with it", err)
		return "", nil
	}
	bin := filepath.Dir(self)
	rec, installed, err := installrec.Load(installrec.PathFor(bin))
	if rec != nil {
		d.installCmd = rec.Installer
		d.extensionIDs = rec.ExtensionIDs
	}
	if err != nil {
		d.problem(LinkBinaries, "the install record is unreadable (%v): run {installer} again", err)
	}
	host = filepath.Join(bin, installrec.Exe("webmcp-host"))
	if _, err := os.Stat(host); err != nil {
		if installed {
			d.problem(LinkBinaries, "%s is missing: run {installer} again", host)
		} else {
			d.info(LinkBinaries, "no webmcp-host beside this webmcp-shim %s (%s): not an installed copy, so the manifests are not compared with it", version(), self)
		}
		return "", rec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, host, "extension-id").Output()
	switch {
	case err != nil:
		d.problem(LinkBinaries, "%s does not run (%v): run {installer} again", host, err)
	case strings.TrimSpace(string(out)) != protocol.ExtensionID:
		d.problem(LinkBinaries, "%s is another version (it knows the extension as %q, this shim as %s): run {installer} again", host, strings.TrimSpace(string(out)), protocol.ExtensionID)
	default:
		// A host older than --version takes it for the extension's
		// origin and fails.
		out, _ := exec.CommandContext(ctx, host, "--version").Output()
		hv := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "webmcp-host"))
		switch {
		case hv == "":
			d.problem(LinkBinaries, "%s is older than this webmcp-shim %s (it does not tell its version): install both again, from the same release ({installer})", host, version())
		case hv != version():
			d.problem(LinkBinaries, "%s is version %s, this webmcp-shim %s: install both again, from the same release ({installer})", host, hv, version())
		default:
			d.ok(LinkBinaries, "webmcp-shim and webmcp-host %s in %s", version(), bin)
		}
	}
	if installed {
		ext := filepath.Join(filepath.Dir(bin), "share", "webmcp-bridge", "extension")
		var m struct{ Name, Version string }
		if b, err := os.ReadFile(filepath.Join(ext, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil {
			d.problem(LinkBinaries, "the extension's folder %s is missing or broken: run {installer} again, then reload the extension in chrome://extensions", ext)
		} else {
			d.info(LinkBinaries, "extension %s %s in %s (the folder to load in chrome://extensions)", m.Name, m.Version, ext)
			d.extVersion = m.Version
		}
	}
	if !installed {
		rec = nil
	}
	return host, rec
}

// checkManifests checks the manifest of every browser that has one, of
// each profile that the install record lists and of each --user-data-dir.
func (d *doctor) checkManifests(host string, rec *installrec.Record, dirs []string) {
	home, _ := os.UserHomeDir()
	sys := manifest.System{GOOS: runtime.GOOS, Home: home, LookPath: exec.LookPath}
	type want struct {
		loc      manifest.Location
		required bool // a missing manifest is a problem
	}
	var locs []want
	if home != "" {
		for _, l := range manifest.Locations(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME")) {
			locs = append(locs, want{loc: l})
		}
	}
	if rec != nil {
		for _, e := range rec.Of(installrec.Manifest) {
			dir := filepath.Dir(e.Path)
			if i := slices.IndexFunc(locs, func(w want) bool { return w.loc.Dir == dir }); i >= 0 {
				locs[i].required = true
				continue
			}
			locs = append(locs, want{loc: manifest.Location{Browser: e.Note, Dir: dir}, required: true})
		}
	}
	for _, dir := range dirs {
		abs, _ := filepath.Abs(dir)
		l := manifest.UserDataDir(abs)
		if i := slices.IndexFunc(locs, func(w want) bool { return w.loc.Dir == l.Dir }); i >= 0 {
			locs[i].required = true
			continue
		}
		locs = append(locs, want{loc: l, required: true})
	}
	found, before := 0, d.report.Problems
	var unregistered []string
	for _, w := range locs {
		l := w.loc
		path := filepath.Join(l.Dir, manifest.FileName)
		m, err := manifest.Read(l.Dir)
		if errors.Is(err, iofs.ErrNotExist) {
			switch {
			case w.required && l.Key == "":
				d.problem(LinkManifest, "%s: no manifest %s, so a browser started with that profile cannot start the host: run {installer} %s", l.Browser, path, l.Browser)
			case w.required:
				d.problem(LinkManifest, "%s: no manifest %s (the install wrote one): run {installer} again", l.Browser, path)
			case manifest.Installed(l, sys):
				unregistered = append(unregistered, l.Key)
			}
			continue
		}
		found++
		if l.Firefox {
			d.firefox = true
		}
		switch {
		case err != nil:
			d.problem(LinkManifest, "%s: %s is unreadable (%v): run {installer} again", l.Browser, path, err)
		case !m.Allows(l.Firefox):
			d.problem(LinkManifest, "%s: %s %s: run {installer} again", l.Browser, path, notAllowed(l.Firefox))
		case !l.Firefox && len(m.MissingIDs(d.extensionIDs)) > 0:
			d.problem(LinkManifest, "%s: %s does not allow the extension ID %s that the install lists (--extension-id), so the browser refuses to start the host for that extension: run {installer} again", l.Browser, path, strings.Join(m.MissingIDs(d.extensionIDs), ", "))
		case !filepath.IsAbs(m.Path):
			d.problem(LinkManifest, "%s: %s names %q, not an absolute path: run {installer} again", l.Browser, path, m.Path)
		case !executable(m.Path):
			d.problem(LinkManifest, "%s: %s names %s, which is not an executable file: run {installer} again", l.Browser, path, m.Path)
		case host != "" && !sameFile(m.Path, host):
			d.problem(LinkManifest, "%s: %s names %s, not the webmcp-host of this install (%s): run {installer} again (of the install you use)", l.Browser, path, m.Path, host)
		default:
			d.ok(LinkManifest, "%s: the browser may start %s", l.Browser, m.Path)
		}
	}
	if found == 0 && d.report.Problems == before {
		d.problem(LinkManifest, "no native-messaging manifest (%s) for any browser: run {installer} (add --user-data-dir DIR for a browser started with one)", manifest.FileName)
	}
	if len(unregistered) > 0 {
		d.info(LinkManifest, "installed but not registered: %s ({installer} registers every installed browser; --browser KEY forces one)", strings.Join(unregistered, ", "))
	}
}

// checkRuntimeDir checks the folder of the hosts' sockets; false means
// there is no point in going on.
func (d *doctor) checkRuntimeDir() bool {
	dir := endpoint.RuntimeDir()
	switch err := endpoint.CheckRuntimeDir(dir); {
	case errors.Is(err, iofs.ErrNotExist):
		d.problem(LinkRuntimeDir, "no runtime directory %s: no host has run yet", dir)
		d.noHost(dir)
		return false
	case errors.Is(err, endpoint.ErrUntrusted):
		d.problem(LinkRuntimeDir, "POSSIBLE ATTACK: the runtime directory %v. No host in it is used until this is fixed", err)
		return false
	case err != nil:
		d.problem(LinkRuntimeDir, "%v", err)
		return false
	}
	d.ok(LinkRuntimeDir, "runtime directory %s (private)", dir)
	return true
}

// checkSockets dials each host socket as a shim would: a dead host's socket
// is removed, a host of another protocol named. It returns whether any host
// answered.
func (d *doctor) checkSockets(ctx context.Context) bool {
	dir := endpoint.RuntimeDir()
	before := d.report.Problems
	socks := d.trustedSockets(dir)
	answered := 0
	for _, s := range socks {
		pid, _ := endpoint.SocketPID(s)
		c, err := hostlink.Dial(ctx, s, hostlink.ConnOptions{
			Client: protocol.ClientInfo{Name: "webmcp-shim doctor", PID: os.Getpid()},
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			if removed, _ := endpoint.RemoveIfStale(s, err); removed {
				d.info(LinkSocket, "removed %s, left by host pid %d, which is gone (a crash, or a browser killed)", s, pid)
				continue
			}
			if errors.Is(err, endpoint.ErrUntrusted) {
				// The file is the user's, the process or pipe behind
				// it is not (CheckPeer): nothing was sent to it.
				d.problem(LinkSocket, "POSSIBLE ATTACK: %v. It is not used; find out what made it before you remove it (%s)", err, removeCmd(s))
				continue
			}
			d.problem(LinkSocket, "%s %s does not answer (%v): if no browser of yours runs, remove it (%s); else restart the browser", endpoint.EndpointNoun, s, err, removeCmd(s))
			continue
		}
		wait := time.NewTimer(ConnectWait)
		select {
		case <-c.Ready():
			answered++
		case <-c.Done():
			if err := c.Err(); err != nil && strings.Contains(err.Error(), "protocol") {
				d.problem(LinkHost, "host pid %d: %v", pid, err)
			} else {
				d.problem(LinkHost, "host pid %d closed the connection (%v): restart the browser", pid, err)
			}
		case <-wait.C:
			d.problem(LinkHost, "host pid %d did not send its state within %v: it hangs, or is still starting; if this persists, restart the browser", pid, ConnectWait)
		case <-ctx.Done():
		}
		wait.Stop()
		c.Close()
	}
	if answered == 0 {
		if d.report.Problems == before {
			d.problem(LinkSocket, "no live host in %s", dir)
		}
		d.noHost(dir)
	}
	return answered > 0
}

// noHost lists the likely causes of no host, most likely first.
func (d *doctor) noHost(dir string) {
	d.report.Causes = []string{
		"the browser is not running, or the WebMCP bridge extension is not loaded in it (chrome://extensions → Developer mode → Load unpacked → the extension folder the installer printed)",
		"a browser started with --user-data-dir DIR needs " + d.installer() + " --user-data-dir DIR (check it with webmcp-shim doctor --user-data-dir DIR)",
		"the extension cannot start the host: its service worker console (chrome://extensions → WebMCP bridge → service worker) says why; \"Specified native messaging host not found\" means no manifest for that browser or profile",
		fmt.Sprintf("the browser and this command disagree on the runtime directory: %s must be the same for both; here it is %s", runtimeDirVars, dir),
	}
	if d.firefox {
		// Firefox registered: its add-on is a temporary one, gone each time Firefox quits.
		d.report.Causes = slices.Insert(d.report.Causes, 1, "in Firefox, the add-on is not loaded: a temporary add-on goes each time Firefox quits; load it again (about:debugging#/runtime/this-firefox → Load Temporary Add-on → manifest.json of the firefox-extension folder the installer printed); its console (about:debugging → WebMCP bridge → Inspect) says why the host does not start")
	}
	if d.json {
		return
	}
	fmt.Fprintln(d.out, "         likely causes, most likely first:")
	for i, c := range d.report.Causes {
		fmt.Fprintf(d.out, "         %d. %s\n", i+1, c)
	}
}

// extensionsPage is where the user reloads the bridge in browser b:
// Firefox's about:debugging for the Firefox add-on, chrome://extensions
// elsewhere (Edge and Brave open it too).
func extensionsPage(b *protocol.Browser) string {
	if b != nil && b.ExtensionID == protocol.FirefoxAddonID {
		return "about:debugging#/runtime/this-firefox"
	}
	return "chrome://extensions"
}

// checkHosts connects as a shim does and reports each browser and its
// tools.
func (d *doctor) checkHosts(ctx context.Context, env *Env) {
	quiet := *env
	quiet.Stderr = io.Discard
	srv, _ := connect(ctx, &quiet)
	defer srv.Close()
	for _, h := range srv.Hosts() {
		switch {
		case h.Browser == nil:
			d.problem(LinkHost, "host pid %d: the extension has not said hello: reload the extension in chrome://extensions", h.PID)
			continue
		case h.Browser.ExtensionID != "" && h.Browser.ExtensionID != protocol.ExtensionID && h.Browser.ExtensionID != protocol.FirefoxAddonID && !slices.Contains(d.extensionIDs, h.Browser.ExtensionID):
			d.problem(LinkHost, "host pid %d was started by extension %s, not the bridge's %s: load the extension from the folder the installer printed (or, for the bridge from a store, run {installer} --extension-id %s)", h.PID, h.Browser.ExtensionID, protocol.ExtensionID, h.Browser.ExtensionID)
			continue
		case h.Version != version():
			was := "an older webmcp-host"
			if h.Version != "" {
				was = "webmcp-host " + h.Version
			}
			d.problem(LinkHost, "host pid %d of %s is %s, this webmcp-shim is %s: it still runs from before an update (or from another install); reload the extension in %s or restart the browser, so that it starts the installed host (if that does not help, run the installer again)", h.PID, h.Browser.Name, was, version(), extensionsPage(h.Browser))
		case d.extVersion != "" && h.Browser.ExtensionVersion != "" && h.Browser.ExtensionVersion != d.extVersion:
			d.problem(LinkHost, "%s runs the extension %s, but %s is installed: reload the extension in %s (or load it from the folder the installer printed)", h.Browser.Name, h.Browser.ExtensionVersion, d.extVersion, extensionsPage(h.Browser))
		case d.extVersion == "" && h.Browser.ExtensionVersion != "" && h.Browser.ExtensionVersion != version():
			d.problem(LinkHost, "%s runs the extension %s, this webmcp-shim is %s: load the extension of the same release in %s (or reload it there after an update)", h.Browser.Name, h.Browser.ExtensionVersion, version(), extensionsPage(h.Browser))
		}
		allowed := 0
		for _, t := range h.Tabs {
			if t.Allowed {
				allowed++
			}
		}
		d.ok(LinkHost, "%s %s (host pid %d, webmcp-host %s, extension %s): %s, %d on allowed sites, %s", h.Browser.Name, h.Browser.Version, h.PID,
			cmp.Or(h.Version, "older than versions"), extensionLabel(h.Browser), plural(len(h.Tabs), "tab"), allowed, plural(h.Tools, "tool"))
		if h.Tools == 0 {
			d.info(LinkTools, "no page offers tools yet: open a page that registers WebMCP tools on an allowed site (e.g. webmcp-shim demo)")
		}
	}
	d.checkSiteAccess(ctx, srv)
}

// checkSiteAccess asks each browser's extension whether the browser
// withholds the sites it asks for at install (localhost, 127.0.0.1,
// [::1]): chrome://extensions' Site access set to "On click" or "On
// specific sites" takes them all back, and the demo's tools vanish.
func (d *doctor) checkSiteAccess(ctx context.Context, srv *shim.Server) {
	ctx, cancel := context.WithTimeout(ctx, ConnectWait)
	defer cancel()
	for _, a := range srv.SiteAccess(ctx) {
		name := "the browser"
		if a.Browser != nil && a.Browser.Name != "" {
			name = a.Browser.Name
		}
		var werr *protocol.Error
		switch {
		case errors.As(a.Err, &werr) && werr.Code == protocol.CodeBadRequest:
			d.info(LinkTools, "%s (host pid %d) runs an extension too old to say which sites it may reach: reload the extension in %s", name, a.PID, extensionsPage(a.Browser))
		case a.Err != nil:
			d.info(LinkTools, "%s (host pid %d) did not say which sites the extension may reach: %v", name, a.PID, a.Err)
		case len(a.Access.Withheld) > 0:
			d.problem(LinkTools, "%s withholds the extension's access to %s, which it asks for at install: no page there gets the bridge. %s",
				name, strings.Join(a.Access.Withheld, ", "), withheldFix(a.Browser))
		default:
			d.ok(LinkTools, "%s lets the extension reach %s", name, plural(len(a.Access.Allowed), "site pattern"))
		}
	}
}

// withheldFix says how to give the extension its loopback sites back.
func withheldFix(b *protocol.Browser) string {
	if b != nil && b.ExtensionID == protocol.FirefoxAddonID {
		return "In about:addons → WebMCP bridge → Permissions, turn on the access to localhost and 127.0.0.1 (or open the bridge's panel on such a page and turn on \"Let local agents use this site\")."
	}
	return "In chrome://extensions → WebMCP bridge → Details → Site access, choose \"On all sites\" (the extension asks for the loopback sites only; others stay off until you allow them in its panel), or open its panel on such a page and turn on \"Let local agents use this site\"."
}

// notAllowed says what is wrong with a manifest that does not allow the
// bridge, and what the browser does then: Firefox's lists add-on IDs in
// allowed_extensions, the others' origins in allowed_origins.
func notAllowed(firefox bool) string {
	if firefox {
		return fmt.Sprintf("does not list the bridge add-on (%s) in allowed_extensions, so Firefox refuses to start the host (\"This extension does not have permission to use native application\")", protocol.FirefoxAddonID)
	}
	return fmt.Sprintf("does not allow the bridge extension (%s), so the browser refuses to start the host (\"Access to the specified native messaging host is forbidden\")", protocol.ExtensionOrigin)
}

// extensionLabel names the extension a host reports.
func extensionLabel(b *protocol.Browser) string {
	if b.ExtensionID == "" {
		return "of unknown ID"
	}
	return b.ExtensionID
}

// trustedSockets lists the host sockets in dir that are the user's own,
// reporting the others (once) as a possible attack.
func (d *doctor) trustedSockets(dir string) []string {
	all, _ := endpoint.HostSockets(dir)
	var out []string
	for _, s := range all {
		err := endpoint.CheckSocket(s)
		switch {
		case err == nil:
			out = append(out, s)
		case errors.Is(err, endpoint.ErrUntrusted) && !d.reported[s]:
			d.problem(LinkSocket, "POSSIBLE ATTACK: the %s %v. It is not used", endpoint.EndpointNoun, err)
			if d.reported == nil {
				d.reported = map[string]bool{}
			}
			d.reported[s] = true
		}
	}
	return out
}

func (d *doctor) finish(env *Env) int {
	d.report.OK = d.report.Problems == 0
	if d.json {
		if d.report.Checks == nil {
			d.report.Checks = []DoctorCheck{}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(d.report)
		env.Stdout.Write(b.Bytes())
	} else if d.report.Problems > 0 {
		fmt.Fprintf(env.Stdout, "\n%s found; see README for set-up.\n", plural(d.report.Problems, "problem"))
	} else {
		fmt.Fprintln(env.Stdout, "\nAll good: agents that run webmcp-shim see the tools above.")
	}
	if d.report.Problems > 0 {
		return ExitFail
	}
	return ExitOK
}

// runtimeDirVars are the variables that choose the runtime directory.
var runtimeDirVars = map[bool]string{false: endpoint.RuntimeDirEnv + " (and XDG_RUNTIME_DIR)", true: endpoint.RuntimeDirEnv}[runtime.GOOS == "windows"]

// removeCmd is the command that removes the file at path, in the user's
// shell: rm, or on Windows del (cmd and PowerShell both have it).
func removeCmd(path string) string {
	if runtime.GOOS == "windows" {
		return `del "` + path + `"`
	}
	return "rm " + path
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// sameFile says whether a and b are the same file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
