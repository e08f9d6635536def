package cli

// doctor against a healthy set-up and against each broken link in turn:
// each run names that link and its fix.

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// doctorHome is an empty HOME; it returns a
// profile folder with a manifest that names an executable host (this test
// binary) and allows the extension.
func doctorHome(t *testing.T) (profile string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	profile = t.TempDir()
	self, _ := os.Executable()
	m, err := manifest.New(self)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Write(m, manifest.UserDataDir(profile).Dir); err != nil {
		t.Fatal(err)
	}
	return profile
}

func doctorJSON(t *testing.T, r cliRun) DoctorJSON {
	t.Helper()
	var d DoctorJSON
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	return d
}

// problems returns the messages of the problems of link.
func (d DoctorJSON) problems(link string) []string {
	var out []string
	for _, c := range d.Checks {
		if c.Status == "problem" && c.Link == link {
			out = append(out, c.Message)
		}
	}
	return out
}

func TestDoctorHealthy(t *testing.T) {
	profile := doctorHome(t)
	// Firefox's manifest, in its folder.
	self, _ := os.Executable()
	ff, _ := manifest.NewFirefox(self)
	if _, err := manifest.Write(ff, filepath.Join(os.Getenv("HOME"), ".mozilla", "native-messaging-hosts")); err != nil {
		t.Fatal(err)
	}
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	ctx := bridgetest.Context(t)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	r := runCLI(ctx, t, dir, "", "doctor", "--user-data-dir", profile)
	r.expect(t, "doctor", 0)
	for _, want := range []string{"--user-data-dir " + profile + ": the browser may start", "Firefox: the browser may start " + self, "runtime directory " + dir + " (private)",
		"Chromium 156.0.0.0 (host pid", "1 tab, 1 on allowed sites, 1 tool", "All good"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "PROBLEM") {
		t.Errorf("doctor found a problem in a working set-up:\n%s", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "doctor", "--json", "--user-data-dir", profile)
	r.expect(t, "doctor --json", 0)
	if d := doctorJSON(t, r); !d.OK || d.Problems != 0 || len(d.Checks) < 3 || d.Causes != nil {
		t.Errorf("doctor --json = %+v", d)
	}
}

func TestDoctorBrokenLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, profile, dir string) // breaks one link
		host  bool                                    // a host runs
		link  string
		says  []string
	}{
		{"no manifest in the given profile", func(t *testing.T, profile, dir string) {
			os.RemoveAll(manifest.UserDataDir(profile).Dir)
		}, true, LinkManifest, []string{"no manifest", "./install.sh --user-data-dir "}},
		{"wrong path", func(t *testing.T, profile, dir string) {
			m, _ := manifest.New(filepath.Join(profile, "gone", "webmcp-host"))
			manifest.Write(m, manifest.UserDataDir(profile).Dir)
		}, true, LinkManifest, []string{"not an executable file", "run ./install.sh again"}},
		{"wrong origin", func(t *testing.T, profile, dir string) {
			self, _ := os.Executable()
			m, _ := manifest.New(self)
			m.AllowedOrigins = []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}
			manifest.Write(m, manifest.UserDataDir(profile).Dir)
		}, true, LinkManifest, []string{"does not allow the bridge extension", protocol.ExtensionOrigin}},
		{"Firefox manifest without the add-on", func(t *testing.T, profile, dir string) {
			self, _ := os.Executable()
			m, _ := manifest.New(self) // Chrome's: allowed_origins
			manifest.Write(m, filepath.Join(os.Getenv("HOME"), ".mozilla", "native-messaging-hosts"))
		}, true, LinkManifest, []string{"Firefox: ", "does not list the bridge add-on (" + protocol.FirefoxAddonID + ") in allowed_extensions"}},
		{"no host", func(t *testing.T, profile, dir string) {}, false, LinkSocket, []string{"no live host in "}},
		{"old protocol", func(t *testing.T, profile, dir string) {
			ln, err := net.Listen("unix", endpoint.SocketPath(dir, os.Getpid()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					bufio.NewReader(c).ReadString('\n') // the hello
					c.Write([]byte(`{"type":"hello","protocol":99,"session":"s1","host":{"pid":1}}` + "\n"))
					defer c.Close()
				}
			}()
		}, false, LinkHost, []string{"speaks bridge protocol 99", "install matching versions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile := doctorHome(t)
			dir := bridgetest.RuntimeDir(t)
			tc.setup(t, profile, dir)
			if tc.host {
				bridgetest.StartHost(t, dir, bridgetest.NewPage())
			}
			ctx := bridgetest.Context(t)
			r := runCLI(ctx, t, dir, "", "doctor", "--json", "--user-data-dir", profile)
			r.expect(t, "doctor --json", 1)
			d := doctorJSON(t, r)
			got := d.problems(tc.link)
			if d.OK || d.Problems != 1 || len(got) != 1 {
				t.Fatalf("want exactly one problem, of link %s; got %+v", tc.link, d)
			}
			for _, want := range tc.says {
				if !strings.Contains(got[0], want) {
					t.Errorf("problem %q lacks %q", got[0], want)
				}
			}
			// The text report says the same.
			r = runCLI(ctx, t, dir, "", "doctor", "--user-data-dir", profile)
			r.expect(t, "doctor", 1)
			if !strings.Contains(r.stdout, "PROBLEM  "+got[0]) || !strings.Contains(r.stdout, "1 problem found") {
				t.Errorf("doctor text:\n%s", r.stdout)
			}
			if tc.link == LinkSocket {
				if len(d.Causes) < 2 || !strings.Contains(d.Causes[1], "--user-data-dir DIR needs ./install.sh --user-data-dir DIR") {
					t.Errorf("causes = %q", d.Causes)
				}
				if !strings.Contains(r.stdout, "likely causes") {
					t.Errorf("doctor text lacks the likely causes:\n%s", r.stdout)
				}
			}
		})
	}
}

// A socket left by a host that crashed is removed, and said, and is not a
// problem by itself (no host is).
func TestDoctorRemovesStaleSocket(t *testing.T) {
	profile := doctorHome(t)
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	sock := endpoint.SocketPath(dir, dead.Process.Pid)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	r := runCLI(ctx, t, dir, "", "doctor", "--json", "--user-data-dir", profile)
	d := doctorJSON(t, r)
	var said bool
	for _, c := range d.Checks {
		said = said || c.Link == LinkSocket && c.Status == "info" && strings.Contains(c.Message, "removed "+sock) && strings.Contains(c.Message, "gone")
	}
	if !said {
		t.Errorf("doctor did not say it removed the stale socket: %+v", d)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the stale socket is still there: %v", err)
	}
	if p := d.problems(LinkSocket); len(p) != 1 || !strings.Contains(p[0], "no live host") {
		t.Errorf("problems = %q, want only no live host", p)
	}
}

// fakeHost listens on a host socket in dir and answers each shim with hello
// (a host's hello line) and an empty state: a host of another release.
func fakeHost(t *testing.T, dir, hello string) {
	t.Helper()
	ln, err := net.Listen("unix", endpoint.SocketPath(dir, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				r.ReadString('\n') // the shim's hello
				c.Write([]byte(hello + "\n" + `{"type":"state","tabs":[],"tools":[]}` + "\n"))
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
				}
			}()
		}
	}()
}

// doctor names a host, or an extension, of another version than the shim
// (one still running from before an update), and says what to do.
func TestDoctorVersionMismatch(t *testing.T) {
	browser := func(extVersion string) string {
		return `"browser":{"name":"Chromium","version":"156","extensionId":"` + protocol.ExtensionID + `","extensionVersion":"` + extVersion + `"}`
	}
	for _, tc := range []struct {
		name  string
		hello string
		says  []string
	}{
		{"old host", `{"type":"hello","protocol":1,"session":"s1","host":{"pid":1,"version":"0.0.9"},` + browser(version()) + `}`,
			[]string{"host pid 1 of Chromium is webmcp-host 0.0.9, this webmcp-shim is " + version(), "reload the extension in chrome://extensions or restart the browser"}},
		{"host older than versions", `{"type":"hello","protocol":1,"session":"s1","host":{"pid":1},` + browser(version()) + `}`,
			[]string{"is an older webmcp-host, this webmcp-shim is " + version(), "restart the browser"}},
		{"extension not reloaded", `{"type":"hello","protocol":1,"session":"s1","host":{"pid":1,"version":"` + version() + `"},` + browser("0.0.9") + `}`,
			[]string{"Chromium runs the extension 0.0.9, this webmcp-shim is " + version(), "reload it there"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile := doctorHome(t)
			dir := bridgetest.RuntimeDir(t)
			fakeHost(t, dir, tc.hello)
			r := runCLI(bridgetest.Context(t), t, dir, "", "doctor", "--json", "--user-data-dir", profile)
			r.expect(t, "doctor --json", 1)
			d := doctorJSON(t, r)
			got := d.problems(LinkHost)
			if d.Problems != 1 || len(got) != 1 {
				t.Fatalf("want exactly one problem, of link %s; got %+v", LinkHost, d)
			}
			for _, want := range tc.says {
				if !strings.Contains(got[0], want) {
					t.Errorf("problem %q lacks %q", got[0], want)
				}
			}
		})
	}
}

// With Firefox registered and no host, the likely causes name Firefox's
// own: its add-on is a temporary one, gone each time Firefox quits, and
// about:debugging loads it again.
func TestDoctorFirefoxNoHost(t *testing.T) {
	profile := doctorHome(t)
	dir := bridgetest.RuntimeDir(t)
	self, _ := os.Executable()
	m, err := manifest.NewFirefox(self)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Write(m, filepath.Join(os.Getenv("HOME"), ".mozilla", "native-messaging-hosts")); err != nil {
		t.Fatal(err)
	}
	r := runCLI(bridgetest.Context(t), t, dir, "", "doctor", "--json", "--user-data-dir", profile)
	r.expect(t, "doctor --json", 1)
	d := doctorJSON(t, r)
	if len(d.Causes) < 2 || !strings.Contains(d.Causes[1], "in Firefox, the add-on is not loaded: a temporary add-on goes each time Firefox quits") || !strings.Contains(d.Causes[1], "about:debugging") {
		t.Errorf("causes = %q, want Firefox's second", d.Causes)
	}
	if got := extensionsPage(&protocol.Browser{ExtensionID: protocol.FirefoxAddonID}); got != "about:debugging#/runtime/this-firefox" {
		t.Errorf("Firefox's extensions page = %q", got)
	}
	if got := extensionsPage(&protocol.Browser{ExtensionID: protocol.ExtensionID}); got != "chrome://extensions" {
		t.Errorf("Chromium's extensions page = %q", got)
	}
}

// A browser whose site access for the extension was set to "On specific
// sites" withholds the loopback sites: the demo's tools vanish, and doctor
// names it and its fix (issue USER2 item 2).
func TestDoctorWithheldSites(t *testing.T) {
	profile := doctorHome(t)
	dir := bridgetest.RuntimeDir(t)
	page := bridgetest.NewPage()
	withheld := []string{"http://localhost/*", "http://127.0.0.1/*"}
	page.HandleRequest(protocol.MethodSiteAccess, func(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
		b, _ := json.Marshal(protocol.SiteAccess{Allowed: []string{}, Withheld: withheld})
		return b, nil
	})
	ext := bridgetest.StartHost(t, dir, page)
	ctx := bridgetest.Context(t)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, nil); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tabs) == 1 })
	r := runCLI(ctx, t, dir, "", "doctor", "--json", "--user-data-dir", profile)
	d := doctorJSON(t, r)
	problems := d.problems(LinkTools)
	if len(problems) != 1 || !strings.Contains(problems[0], "withholds the extension's access to http://localhost/*, http://127.0.0.1/*") || !strings.Contains(problems[0], `Site access, choose "On all sites"`) {
		t.Errorf("doctor's tools problems = %q, want the withheld sites and the fix", problems)
	}
	if d.OK {
		t.Errorf("doctor says all is well while the browser withholds the loopback sites")
	}
}
