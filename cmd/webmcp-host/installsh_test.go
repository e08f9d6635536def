package main

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
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/webmcp"
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
	script, err := filepath.Abs("../../install.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	profile := filepath.Join(t.TempDir(), "profile")
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	env := []string{
		"HOME=" + home, "PATH=" + toolPath(t), "LANG=C",
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0",
	}
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
		return string(out)
	}

	out := run("--user-data-dir", profile)
	prefix := filepath.Join(home, ".local")
	bin := filepath.Join(prefix, "bin")
	for _, want := range []string{
		"browsers found: Chromium\n", "skipped, not installed: Chrome, ",
		"wrote " + filepath.Join(home, ".config", "chromium", "NativeMessagingHosts", manifest.FileName),
		"wrote " + filepath.Join(profile, "NativeMessagingHosts", manifest.FileName),
		"claude mcp add --scope user webmcp -- " + filepath.Join(bin, "webmcp-shim"),
		"is not on your PATH",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh output lacks %q", want)
		}
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
	if len(rec.Of(installrec.File)) != 2 || len(rec.Of(installrec.Tree)) != 1 || len(rec.Of(installrec.Manifest)) != 2 {
		t.Errorf("install record: %+v", rec.Entries)
	}

	// The installed doctor knows this install: its binaries, the
	// extension's folder, and the manifests of the record, the profile's
	// included without --user-data-dir.
	doctor := func() DoctorReport {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "webmcp-shim"), "doctor", "--json")
		cmd.Env = append(env, webmcp.RuntimeDirEnv+"="+filepath.Join(t.TempDir(), "none"))
		out, _ := cmd.Output()
		var r DoctorReport
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		return r
	}
	r := doctor()
	for _, want := range []string{"ok webmcp-shim and webmcp-host in " + bin, "info extension WebMCP bridge ",
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
	if strings.Contains(out, "wrote ") || !strings.Contains(out, "unchanged ") || !strings.Contains(out, "Updated ") {
		t.Errorf("second install.sh wrote something or did not say so")
	}
	if recAfter, _ := os.ReadFile(record); string(recAfter) != string(recBefore) {
		t.Errorf("second install.sh changed the record:\n%s\n---\n%s", recBefore, recAfter)
	}
	if d := tree(t, home); !slices.Equal(d, treeBefore) {
		t.Errorf("second install.sh changed the files:\n%v\n---\n%v", treeBefore, d)
	}

	// A host of this install runs, as a browser would start it.
	ctx := bridgetest.Context(t)
	host := exec.CommandContext(ctx, filepath.Join(bin, "webmcp-host"), webmcp.ExtensionOrigin)
	host.Env = append(os.Environ(), webmcp.RuntimeDirEnv+"="+bridgetest.RuntimeDir(t))
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

	out = run("--uninstall")
	for _, want := range []string{"stopped webmcp-host", "chrome://extensions", "removed " + filepath.Join(profile, "NativeMessagingHosts", manifest.FileName)} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh --uninstall output lacks %q", want)
		}
	}
	bridgetest.Await(ctx, t, exited, "the host to exit")
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
