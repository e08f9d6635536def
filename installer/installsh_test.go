package installer

// install.sh itself, in a fake HOME where only Chromium has run, with a PATH
// that holds only the tools it needs (so that the browsers of the machine
// running the test do not count).

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/internal/version"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// DoctorReport is what webmcp-shim doctor --json prints.
type DoctorReport struct {
	OK     bool
	Checks []struct{ Link, Status, Message string }
}

// has says whether the report has a check "STATUS MESSAGE…".
func (r DoctorReport) has(prefix string) bool {
	for _, c := range r.Checks {
		if strings.HasPrefix(c.Status+" "+c.Message, prefix) {
			return true
		}
	}
	return false
}

// toolPath is a folder of links to the commands install.sh and go build
// run, plus a fake `claude`.
// offlineEnv is the environment of an install.sh run with HOME home: the
// tools of toolPath only, and Go building from this machine's caches
// without the network.
func offlineEnv(t *testing.T, home string) []string {
	t.Helper()
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	return []string{
		"HOME=" + home, "PATH=" + toolPath(t), "LANG=C",
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0",
	}
}

func toolPath(t *testing.T) string {
	dir := t.TempDir()
	for _, c := range []string{"bash", "uname", "dirname", "mkdir", "touch", "grep", "rm", "cp", "mv", "mktemp", "cat", "go", "git"} {
		p, err := exec.LookPath(c)
		if err != nil {
			if c == "git" {
				continue
			}
			t.Fatalf("install.sh needs %s: %v", c, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	return dir
}

// checkWidth fails t for each line of out wider than 80 columns, but for a
// line that holds a single word (a long path), maybe with " \\" (or " `",
// PowerShell's) after it.
func checkWidth(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(line) <= 80 {
			continue
		}
		if words := strings.Fields(strings.TrimSuffix(strings.TrimSuffix(line, " \\"), " `")); len(words) == 1 {
			continue
		}
		t.Errorf("%s prints a line of %d columns:\n%s", what, utf8.RuneCountInString(line), line)
	}
}

// tree lists the paths under root, but for Go's own (telemetry) files.
func tree(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == filepath.Join(root, ".config", "go") {
			return filepath.SkipDir
		}
		out = append(out, p)
		return nil
	})
	return out
}

func TestInstallScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	script, err := filepath.Abs("../install.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	os.MkdirAll(filepath.Join(home, ".mozilla", "firefox"), 0o700) // Firefox has run
	// Hosts and shims put their sockets in XDG_RUNTIME_DIR/webmcp.
	xdgRuntime := bridgetest.RuntimeDir(t)
	profile := filepath.Join(t.TempDir(), "profile")
	env := append(offlineEnv(t, home), "XDG_RUNTIME_DIR="+xdgRuntime)
	before := tree(t, home)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Env = env
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("install.sh %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("install.sh %s:\n%s", strings.Join(args, " "), out)
		checkWidth(t, "install.sh "+strings.Join(args, " "), string(out))
		return string(out)
	}

	out := run("--user-data-dir", profile)
	prefix := filepath.Join(home, ".local")
	bin := filepath.Join(prefix, "bin")
	for _, want := range []string{
		"browsers found: Chromium, Firefox skipped, not installed: Chrome, ",
		"wrote " + filepath.Join(home, ".mozilla", "native-messaging-hosts", manifest.FileName) + " (Firefox)",
		`In Firefox, as a temporary add-on (gone when Firefox quits; the add-on is not signed yet): open about:debugging#/runtime/this-firefox, click "Load Temporary Add-on" and pick ` +
			filepath.Join(prefix, "share", "webmcp-bridge", "firefox-extension", "manifest.json"),
		"wrote " + filepath.Join(home, ".config", "chromium", "NativeMessagingHosts", manifest.FileName),
		"wrote " + filepath.Join(profile, "NativeMessagingHosts", manifest.FileName),
		"claude mcp add --scope user webmcp -- " + filepath.Join(bin, "webmcp-shim"),
		"Do so in the browser started with --user-data-dir=" + profile + " too",
		"is not on your PATH",
	} {
		if !strings.Contains(oneLine(strings.ReplaceAll(out, " \\\n", " ")), want) {
			t.Errorf("install.sh output lacks %q", want)
		}
	}
	// It does not tell to do what was just done.
	if strings.Contains(out, "./install.sh --user-data-dir DIR") {
		t.Errorf("install.sh --user-data-dir says to run install.sh --user-data-dir")
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "google-chrome")); err == nil {
		t.Error("install.sh made a folder for Chrome, which is not installed")
	}
	for _, d := range []string{filepath.Join(home, ".config", "chromium", "NativeMessagingHosts"), filepath.Join(profile, "NativeMessagingHosts")} {
		if m, err := manifest.Read(d); err != nil || m.Path != filepath.Join(bin, "webmcp-host") {
			t.Errorf("manifest in %s: %+v, %v", d, m, err)
		}
	}
	record := filepath.Join(prefix, "share", "webmcp-bridge", installrec.FileName)
	rec, ok, err := installrec.Load(record)
	if err != nil || !ok {
		t.Fatalf("install record: %v, %v", ok, err)
	}
	if len(rec.Of(installrec.File)) != 2 || len(rec.Of(installrec.Tree)) != 2 || len(rec.Of(installrec.Manifest)) != 3 {
		t.Errorf("install record: %+v", rec.Entries)
	}
	// The Firefox add-on: the extension with Firefox's manifest.
	if b, err := os.ReadFile(filepath.Join(prefix, "share", "webmcp-bridge", "firefox-extension", "manifest.json")); err != nil || !strings.Contains(string(b), `"id": "`+protocol.FirefoxAddonID+`"`) {
		t.Errorf("the Firefox add-on's manifest: %v\n%s", err, b)
	}

	// The installed doctor knows this install: its binaries, the
	// extension's folder, and the manifests of the record, the profile's
	// included without --user-data-dir.
	doctor := func() DoctorReport {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "webmcp-shim"), "doctor", "--json")
		cmd.Env = append(env, endpoint.RuntimeDirEnv+"="+filepath.Join(t.TempDir(), "none"))
		out, _ := cmd.Output()
		var r DoctorReport
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		return r
	}
	r := doctor()
	for _, want := range []string{"ok webmcp-shim and webmcp-host " + version.Version + " in " + bin, "info extension WebMCP bridge ",
		"ok Chromium: the browser may start " + filepath.Join(bin, "webmcp-host"),
		"ok --user-data-dir " + profile + ": the browser may start", "problem no runtime directory"} {
		if !r.has(want) {
			t.Errorf("installed doctor lacks %q: %+v", want, r.Checks)
		}
	}
	// A manifest that names another install's host is named as such.
	chromium := filepath.Join(home, ".config", "chromium", "NativeMessagingHosts")
	orig, _ := manifest.Read(chromium)
	other := filepath.Join(t.TempDir(), "webmcp-host")
	b, _ := os.ReadFile(filepath.Join(bin, "webmcp-host"))
	os.WriteFile(other, b, 0o755)
	m, _ := manifest.New(other)
	manifest.Write(m, chromium)
	if r := doctor(); !r.has("problem Chromium: " + filepath.Join(chromium, manifest.FileName) + " names " + other + ", not the webmcp-host of this install") {
		t.Errorf("doctor missed a manifest of another install: %+v", r.Checks)
	}
	manifest.Write(orig, chromium)

	// Again, without the profile: a no-op that keeps the profile's manifest.
	recBefore, _ := os.ReadFile(record)
	treeBefore := tree(t, home)
	out = run()
	if o := oneLine(out); strings.Contains(o, "wrote ") || !strings.Contains(o, "unchanged ") || !strings.Contains(o, "Updated ") || !strings.Contains(o, "2. Register the shim") {
		t.Errorf("second install.sh wrote something, did not say so, or left out the next steps")
	}
	if recAfter, _ := os.ReadFile(record); string(recAfter) != string(recBefore) {
		t.Errorf("second install.sh changed the record:\n%s\n---\n%s", recBefore, recAfter)
	}
	if d := tree(t, home); !slices.Equal(d, treeBefore) {
		t.Errorf("second install.sh changed the files:\n%v\n---\n%v", treeBefore, d)
	}

	// Again for the profile, once installed: only the step that the
	// profile needs.
	out = run("--user-data-dir", profile)
	if !strings.Contains(oneLine(out), "load the extension in the browser started with --user-data-dir="+profile) ||
		strings.Contains(out, "Register the shim") || strings.Contains(out, "./install.sh --user-data-dir DIR") {
		t.Errorf("install.sh --user-data-dir after the install: want only the extension's step for that profile")
	}

	// A host of this install runs, as a browser would start it, and a shim
	// over HTTP, as one would run it by hand.
	ctx := bridgetest.Context(t)
	host := exec.CommandContext(ctx, filepath.Join(bin, "webmcp-host"), protocol.ExtensionOrigin)
	host.Env = env
	stdin, _ := host.StdinPipe()
	defer stdin.Close()
	log := bridgetest.NewLog(t, "webmcp-host")
	host.Stderr = log
	host.Stdout = io.Discard
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- host.Wait() }()
	if _, err := log.Await(ctx, "listening on"); err != nil {
		t.Fatal(err)
	}
	shim := exec.CommandContext(ctx, filepath.Join(bin, "webmcp-shim"), "--http", "127.0.0.1:0")
	shim.Env = env
	shimLog := bridgetest.NewLog(t, "webmcp-shim")
	shim.Stderr = shimLog
	if err := shim.Start(); err != nil {
		t.Fatal(err)
	}
	shimExited := make(chan error, 1)
	go func() { shimExited <- shim.Wait() }()
	if _, err := shimLog.Await(ctx, "serving MCP (Streamable HTTP)"); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(home, ".config", "webmcp-bridge", "http-token")
	if _, err := os.Stat(tokenFile); err != nil {
		t.Fatalf("the shim made no token: %v", err)
	}

	out = run("--uninstall")
	for _, want := range []string{
		"stopped webmcp-host (pid " + strconv.Itoa(host.Process.Pid),
		"stopped webmcp-shim (pid " + strconv.Itoa(shim.Process.Pid) + ": webmcp-shim --http 127.0.0.1:0)",
		"removed " + filepath.Join(profile, "NativeMessagingHosts", manifest.FileName),
		"removed the HTTP token " + tokenFile,
		"removed the runtime folder " + filepath.Join(xdgRuntime, "webmcp"),
		"chrome://extensions → WebMCP bridge → Remove. Its files are gone, so until then the browser shows it as broken",
	} {
		if !strings.Contains(oneLine(out), want) {
			t.Errorf("install.sh --uninstall output lacks %q", want)
		}
	}
	if strings.Contains(out, "host is missing") {
		t.Errorf("install.sh --uninstall says the extension reports a missing host: its files are gone")
	}
	bridgetest.Await(ctx, t, exited, "the host to exit")
	bridgetest.Await(ctx, t, shimExited, "the shim to exit")
	if _, err := os.Lstat(filepath.Join(xdgRuntime, "webmcp")); !os.IsNotExist(err) {
		t.Errorf("install.sh --uninstall left the runtime folder: %v", err)
	}
	if after := tree(t, home); !slices.Equal(after, before) {
		t.Errorf("install.sh --uninstall left files behind:\n%v\nwant only\n%v", after, before)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("install.sh --uninstall left the profile folder it made: %v", err)
	}

	out = run("--uninstall")
	if !strings.Contains(out, "Nothing to uninstall") {
		t.Errorf("a second --uninstall did not say there is nothing to do")
	}
}
