package installer

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// install.sh --extension-id ID: every Chromium manifest allows the store's
// ID beside the fixed one, the record keeps it, so a reinstall without
// the option keeps it too; the installed host serves that extension and
// no other; doctor names a manifest that lost it; a bad ID is refused.
func TestInstallExtensionID(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	script, err := filepath.Abs("../install.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	rt := bridgetest.RuntimeDir(t)
	profile := filepath.Join(t.TempDir(), "profile")
	env := append(offlineEnv(t, home), "XDG_RUNTIME_DIR="+rt, endpoint.RuntimeDirEnv+"="+filepath.Join(rt, "webmcp"))
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	store := "abcdefghijklmnopabcdefghijklmnop"
	out, err := run("bash", script, "--user-data-dir", profile, "--extension-id", store)
	if err != nil {
		t.Fatalf("install.sh --extension-id: %v\n%s", err, out)
	}
	if !strings.Contains(out, "extension ID "+store+" may start") {
		t.Errorf("install.sh does not say the store's ID may start the host:\n%s", out)
	}
	prefix := filepath.Join(home, ".local")
	dirs := []string{filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"), filepath.Join(profile, "NativeMessagingHosts")}
	want := []string{protocol.ExtensionOrigin, "chrome-extension://" + store + "/"}
	check := func(when string) {
		t.Helper()
		for _, d := range dirs {
			if m, err := manifest.Read(d); err != nil || !slices.Equal(m.AllowedOrigins, want) {
				t.Errorf("%s: the manifest in %s allows %q (%v), want %q", when, d, m.AllowedOrigins, err, want)
			}
		}
		rec, _, err := installrec.Load(filepath.Join(prefix, "share", "webmcp-bridge", installrec.FileName))
		if err != nil || !slices.Equal(rec.ExtensionIDs, []string{store}) {
			t.Errorf("%s: the record's extension IDs: %q, %v", when, rec.ExtensionIDs, err)
		}
	}
	check("after install.sh --extension-id")
	// Again, without the option: it keeps the ID.
	if out, err := run("bash", script, "--user-data-dir", profile); err != nil {
		t.Fatalf("install.sh again: %v\n%s", err, out)
	}
	check("after install.sh without --extension-id")

	// The installed host, started by the browser for the store's
	// extension, serves it (and exits when the browser's pipe closes); for
	// another extension it refuses.
	host := filepath.Join(prefix, "bin", "webmcp-host")
	if out, err := run(host, "chrome-extension://"+store+"/"); err != nil || strings.Contains(out, "refusing") {
		t.Errorf("webmcp-host for the store's extension: %v\n%s", err, out)
	}
	other := "ponmlkjihgfedcbaponmlkjihgfedcba"
	if out, err := run(host, "chrome-extension://"+other+"/"); err == nil || !strings.Contains(out, "refusing") {
		t.Errorf("webmcp-host for an extension the install does not list: %v\n%s", err, out)
	}

	// doctor: a manifest without the store's ID is a problem.
	shim := filepath.Join(prefix, "bin", "webmcp-shim")
	m, _ := manifest.Read(dirs[1])
	m.AllowedOrigins = m.AllowedOrigins[:1]
	if _, err := manifest.Write(m, dirs[1]); err != nil {
		t.Fatal(err)
	}
	doc, _ := run(shim, "doctor", "--json", "--user-data-dir", profile)
	var report DoctorReport
	if err := json.Unmarshal([]byte(doc), &report); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, doc)
	}
	if !slices.ContainsFunc(report.Checks, func(c struct{ Link, Status, Message string }) bool {
		return c.Status == "problem" && strings.Contains(c.Message, filepath.Join(dirs[1], manifest.FileName)+" does not allow the extension ID "+store)
	}) {
		t.Errorf("doctor does not name the manifest without the store's ID:\n%s", doc)
	}
	if report.has("problem Chromium") {
		t.Errorf("doctor finds a problem in Chromium's manifest, which allows both:\n%s", doc)
	}

	// A bad ID, or one without --prefix, is a usage error.
	for _, args := range [][]string{{script, "--extension-id", "ABC"}, {script, "--extension-id", store + "a"}} {
		if out, err := run("bash", args...); err == nil || !strings.Contains(strings.Join(strings.Fields(out), " "), "32 letters a to p") {
			t.Errorf("install.sh %q: %v\n%s", args[1:], err, out)
		}
	}
	if out, err := run(host, "install", "--no-browsers", "--user-data-dir", profile, "--extension-id", store); err == nil || !strings.Contains(strings.Join(strings.Fields(out), " "), "--extension-id goes with --prefix") {
		t.Errorf("webmcp-host install --extension-id without --prefix: %v\n%s", err, out)
	}
}
