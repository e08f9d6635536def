package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/webmcp"
)

func doctorCommand() *Command {
	return &Command{
		Name:    "doctor",
		Args:    "[--user-data-dir DIR]...",
		Summary: "check the installation, link by link, and say what to fix",
		Run:     runDoctor,
	}
}

// doctor is one run of checks; each check prints one line.
type doctor struct {
	out      io.Writer
	problems int
	reported map[string]bool // sockets reported as not the user's
}

func (d *doctor) ok(format string, args ...any) {
	fmt.Fprintf(d.out, "ok       "+format+"\n", args...)
}

func (d *doctor) problem(format string, args ...any) {
	d.problems++
	fmt.Fprintf(d.out, "PROBLEM  "+format+"\n", args...)
}

func (d *doctor) info(format string, args ...any) {
	fmt.Fprintf(d.out, "         "+format+"\n", args...)
}

func runDoctor(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("doctor")
	var dirs multiFlag
	fs.Var(&dirs, "user-data-dir", "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	d := &doctor{out: env.Stdout}

	// 1. The native-messaging manifests: the browser starts the host only
	// through one of them.
	var locs []manifest.Location
	if home, err := os.UserHomeDir(); err == nil {
		locs = manifest.Locations(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME"))
	}
	for _, dir := range dirs {
		abs, _ := filepath.Abs(dir)
		locs = append(locs, manifest.UserDataDir(abs))
	}
	found := 0
	for _, l := range locs {
		m, err := manifest.Read(l.Dir)
		if os.IsNotExist(err) {
			continue
		}
		found++
		path := filepath.Join(l.Dir, manifest.FileName)
		switch {
		case err != nil:
			d.problem("%s: %s is unreadable (%v): run ./install.sh again", l.Browser, path, err)
		case !slices.Contains(m.AllowedOrigins, webmcp.ExtensionOrigin):
			d.problem("%s: %s does not allow the bridge extension (%s): run ./install.sh again", l.Browser, path, webmcp.ExtensionOrigin)
		case !executable(m.Path):
			d.problem("%s: %s names %s, which is not an executable file: run ./install.sh again", l.Browser, path, m.Path)
		default:
			d.ok("%s: the browser may start %s", l.Browser, m.Path)
		}
	}
	if found == 0 {
		d.problem("no native-messaging manifest (%s) for any browser: run ./install.sh (add --user-data-dir DIR for a browser started with one)", manifest.FileName)
	}

	// 2. The runtime directory, where hosts put their sockets.
	dir := webmcp.RuntimeDir()
	switch err := webmcp.CheckRuntimeDir(dir); {
	case errors.Is(err, iofs.ErrNotExist):
		d.problem("no runtime directory %s: no host has run yet. Open the browser with the WebMCP bridge extension loaded (chrome://extensions → Developer mode → Load unpacked); if it is loaded, check that %s (and XDG_RUNTIME_DIR) are set alike for the browser and for this command", dir, webmcp.RuntimeDirEnv)
		return d.finish(env)
	case errors.Is(err, webmcp.ErrUntrusted):
		d.problem("POSSIBLE ATTACK: the runtime directory %v. No host in it is used until this is fixed", err)
		return d.finish(env)
	case err != nil:
		d.problem("%v", err)
		return d.finish(env)
	default:
		d.ok("runtime directory %s (private)", dir)
	}

	// 3. The hosts: each one is a browser profile with the extension.
	socks := d.trustedSockets(dir)
	if len(socks) == 0 {
		d.problem("no host socket in %s: the browser is not running, or the extension is not loaded, or it cannot start the host (see the extension's service worker console in chrome://extensions)", dir)
		return d.finish(env)
	}
	srv, _ := connect(ctx, env)
	defer srv.Close()
	hosts := srv.Hosts()
	// Connecting removed the sockets of hosts that are gone.
	if left := d.trustedSockets(dir); len(left) < len(socks) {
		d.info("removed %s left by hosts that are gone", plural(len(socks)-len(left), "socket"))
		socks = left
	}
	if len(hosts) < len(socks) {
		d.problem("%d of %d host sockets did not answer: a host that hangs, or one still starting; if this persists, restart the browser (a socket whose host process is gone is removed by itself)", len(socks)-len(hosts), len(socks))
	}
	if len(socks) == 0 && len(hosts) == 0 {
		d.problem("no live host in %s: the browser is not running, or the extension is not loaded, or it cannot start the host (see the extension's service worker console in chrome://extensions)", dir)
		return d.finish(env)
	}
	for _, h := range hosts {
		if h.Browser == nil {
			d.problem("host pid %d: the extension has not said hello: reload the extension in chrome://extensions", h.PID)
			continue
		}
		allowed, tools := 0, h.Tools
		for _, t := range h.Tabs {
			if t.Allowed {
				allowed++
			}
		}
		d.ok("%s %s (host pid %d): %s, %d on allowed sites, %s", h.Browser.Name, h.Browser.Version, h.PID,
			plural(len(h.Tabs), "tab"), allowed, plural(tools, "tool"))
		if tools == 0 {
			d.info("no page offers tools yet: open a page that registers WebMCP tools on an allowed site (e.g. webmcp-shim demo)")
		}
	}
	return d.finish(env)
}

// trustedSockets lists the host sockets in dir that are the user's own,
// reporting the others (once) as a possible attack.
func (d *doctor) trustedSockets(dir string) []string {
	all, _ := webmcp.HostSockets(dir)
	var out []string
	for _, s := range all {
		err := webmcp.CheckSocket(s)
		switch {
		case err == nil:
			out = append(out, s)
		case errors.Is(err, webmcp.ErrUntrusted) && !d.reported[s]:
			d.problem("POSSIBLE ATTACK: the host socket %v. It is not used", err)
			if d.reported == nil {
				d.reported = map[string]bool{}
			}
			d.reported[s] = true
		}
	}
	return out
}

func (d *doctor) finish(env *Env) int {
	if d.problems > 0 {
		fmt.Fprintf(env.Stdout, "\n%s found; see README for set-up.\n", plural(d.problems, "problem"))
		return ExitFail
	}
	fmt.Fprintln(env.Stdout, "\nAll good: agents that run webmcp-shim see the tools above.")
	return ExitOK
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
