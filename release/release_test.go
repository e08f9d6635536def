package main

// The release command end to end, for this machine's platform only (the
// release builds all of them): the archive is built, its checksum holds,
// it unpacks, its installer runs with no Go on PATH and an empty HOME, and
// the installed webmcp-shim passes doctor and lists a page's tool (through
// the installed webmcp-host, with internal/fakeext as the browser).

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/internal/version"
	"github.com/webmcp-bridge/bridge/webmcp"
)

func TestMain(m *testing.M) { bridgetest.Main(m) }

// noGoPath is a PATH without go: /usr/bin:/bin if go is not there, else a
// folder of links to what install.sh runs.
func noGoPath(t *testing.T) string {
	t.Helper()
	if _, err1 := os.Stat("/usr/bin/go"); os.IsNotExist(err1) {
		if _, err2 := os.Stat("/bin/go"); os.IsNotExist(err2) {
			return "/usr/bin:/bin"
		}
	}
	dir := t.TempDir()
	for _, c := range []string{"bash", "uname", "dirname", "mkdir", "touch", "grep", "rm", "cp", "mv", "mktemp", "cat"} {
		p, err := exec.LookPath(c)
		if err != nil {
			t.Fatalf("install.sh needs %s: %v", c, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestArchiveInstallsWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release archive")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh runs on Linux and macOS")
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	if !slices.Contains(Targets, target) {
		t.Skipf("no release for %s", target)
	}
	// A release tag's version, not the committed one: it must reach the
	// binaries and the extension's manifest alike.
	const v = "9.8.7"
	out := t.TempDir()
	files, err := Build(Options{Source: "..", Out: out, Version: "v" + v, Targets: []string{target}})
	if err != nil {
		t.Fatal(err)
	}
	name := "webmcp-bridge_" + v + "_" + runtime.GOOS + "_" + runtime.GOARCH
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path))
		if fi, err := os.Stat(f.Path); err != nil || fi.Size() != f.Size || f.Size == 0 {
			t.Errorf("%s: %v, size %d, Build said %d", f.Path, err, fi.Size(), f.Size)
		}
	}
	ext := "webmcp-bridge-extension_" + v + ".zip"
	if want := []string{name + ".tar.gz", ext, "SHA256SUMS"}; !slices.Equal(names, want) {
		t.Fatalf("release files = %q, want %q", names, want)
	}

	t.Run("SHA256SUMS", func(t *testing.T) {
		sum, err := exec.LookPath("sha256sum")
		args := []string{"-c", "SHA256SUMS"}
		if err != nil {
			if sum, err = exec.LookPath("shasum"); err != nil {
				t.Skip("no sha256sum or shasum")
			}
			args = append([]string{"-a", "256"}, args...)
		}
		cmd := exec.Command(sum, args...)
		cmd.Dir = out
		b, err := cmd.CombinedOutput()
		if err != nil || strings.Count(string(b), ": OK") != 2 {
			t.Errorf("%s -c SHA256SUMS: %v\n%s", sum, err, b)
		}
	})

	t.Run("extension zip", func(t *testing.T) {
		zr, err := zip.OpenReader(filepath.Join(out, ext))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		var manifest struct{ Version, Key string }
		for _, f := range zr.File {
			if strings.HasPrefix(f.Name, "test/") {
				t.Errorf("the extension's zip holds its tests: %s", f.Name)
			}
			if f.Name != "manifest.json" {
				continue
			}
			r, _ := f.Open()
			json.NewDecoder(r).Decode(&manifest)
			r.Close()
		}
		if manifest.Version != v || manifest.Key == "" {
			t.Errorf("the zip's manifest.json: version %q, key %q; want version %s and the key (the unpacked ID)", manifest.Version, manifest.Key, v)
		}
	})

	// Unpacked with the system's tar, as people do.
	unpacked := t.TempDir()
	if b, err := exec.Command("tar", "-xzf", filepath.Join(out, name+".tar.gz"), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf: %v\n%s", err, b)
	}
	dir := filepath.Join(unpacked, name)
	for _, f := range []string{"webmcp-host", "webmcp-shim", "install.sh", "README.md", "LICENSE", "extension/manifest.json", "extension/background.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the archive lacks %s: %v", f, err)
		}
	}
	for _, f := range []string{"go.mod", "extension/test"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the archive holds %s", f)
		}
	}

	// The installer, with an empty HOME where Chromium has run and no Go.
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	rt := bridgetest.RuntimeDir(t)
	env := []string{"PATH=" + noGoPath(t), "HOME=" + home, "LANG=C", webmcp.RuntimeDirEnv + "=" + rt}
	install := exec.Command(filepath.Join(dir, "install.sh"))
	install.Env = env
	b, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, b)
	}
	bin := filepath.Join(home, ".local", "bin")
	if !strings.Contains(string(b), "Installed webmcp-host and webmcp-shim in") {
		t.Errorf("install.sh says:\n%s", b)
	}
	for _, f := range []string{"webmcp-host", "webmcp-shim"} {
		got, _ := os.ReadFile(filepath.Join(bin, f))
		want, _ := os.ReadFile(filepath.Join(dir, f))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("installed %s is not the archive's", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, ".local", "share", "webmcp-bridge", "extension", "manifest.json")); err != nil || !strings.Contains(string(b), `"version": "`+v+`"`) {
		t.Errorf("the installed extension's manifest.json lacks version %s: %v\n%s", v, err, b)
	}
	shim := filepath.Join(bin, "webmcp-shim")
	if b, err := run(env, shim, "--version"); err != nil || b != "webmcp-shim "+v+"\n" {
		t.Errorf("webmcp-shim --version = %q, %v", b, err)
	}

	// A browser: the fake extension starts the installed host.
	fx := bridgetest.StartExt(t, fakeext.Options{HostBinary: filepath.Join(bin, "webmcp-host"), RuntimeDir: rt, Handler: bridgetest.NewPage().Serve})
	if err := fx.Hello(); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostBrowser(t, fx.Socket())
	if err := fx.SetState([]webmcp.Tab{bridgetest.Tab(12, "Trace viewer")}, []webmcp.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, fx.Socket(), func(s *webmcp.Snapshot) bool { return len(s.Tools) == 1 })

	doc, err := run(env, shim, "doctor")
	if err != nil {
		t.Errorf("doctor: %v\n%s", err, doc)
	}
	for _, want := range []string{"ok       webmcp-shim and webmcp-host " + v + " in " + bin,
		"the browser may start " + filepath.Join(bin, "webmcp-host"), "webmcp-host " + v + ", extension", "1 tool", "All good"} {
		if !strings.Contains(doc, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doc)
		}
	}

	// tools/list through the installed shim, as an agent starts it.
	cmd := exec.Command(shim)
	cmd.Env = env
	cmd.Stderr = bridgetest.NewLog(t, "webmcp-shim")
	c := bridgetest.ConnectMCP(t, &mcp.CommandTransport{Command: cmd})
	c.AwaitChange(bridgetest.Context(t), "the page's echo tool", func(tools map[string]*mcp.Tool) bool {
		for n := range tools {
			if strings.Contains(n, "echo") {
				return true
			}
		}
		return false
	})
}

// run runs a command with env and returns its output.
func run(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func TestVersionsRefused(t *testing.T) {
	for _, v := range []string{"1.2.3-rc.1", "v1.2.3.4.5", "x"} {
		if _, err := Build(Options{Source: "..", Out: t.TempDir(), Version: v}); err == nil || !strings.Contains(err.Error(), "dot-separated numbers") {
			t.Errorf("Build of version %q: %v, want it refused", v, err)
		}
	}
}

func TestSetManifestVersion(t *testing.T) {
	in := "{\n  \"manifest_version\": 3,\n  \"name\": \"x\",\n  \"version\":\"0.1.0\",\n  \"key\": \"K\"\n}\n"
	want := "{\n  \"manifest_version\": 3,\n  \"name\": \"x\",\n  \"version\": \"2.0\",\n  \"key\": \"K\"\n}\n"
	got, err := setManifestVersion([]byte(in), "2.0")
	if err != nil || string(got) != want {
		t.Errorf("setManifestVersion = %q, %v; want %q", got, err, want)
	}
}

// The npm packages, packed with npm pack and installed from those
// tarballs into an empty prefix, with no Go on PATH and no registry:
// npx webmcp-bridge install runs the installer on the platform package's
// binaries, and npx webmcp-bridge runs webmcp-shim.
func TestNPMInstallsWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh runs on Linux and macOS")
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	out := t.TempDir()
	if _, err := Build(Options{Source: "..", Out: out, Targets: []string{target}, NPM: true}); err != nil {
		t.Fatal(err)
	}
	nos, cpu := npmPlatform(runtime.GOOS, runtime.GOARCH)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
	path := noGoPath(t)
	node, _ := exec.LookPath("node")
	path = filepath.Dir(npm) + ":" + filepath.Dir(node) + ":" + path
	if _, err := lookPathIn("go", path); err == nil {
		t.Skipf("go is beside npm or node (%s)", path)
	}
	env := []string{"PATH=" + path, "HOME=" + home, "LANG=C", webmcp.RuntimeDirEnv + "=" + bridgetest.RuntimeDir(t),
		"npm_config_cache=" + filepath.Join(t.TempDir(), "npm-cache"), "npm_config_update_notifier=false"}
	npmRun := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(npm, args...)
		cmd.Dir, cmd.Env = dir, env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	tarballs := t.TempDir()
	for _, pkg := range []string{"webmcp-bridge-" + nos + "-" + cpu, "webmcp-bridge"} {
		npmRun(filepath.Join(out, "npm", pkg), "pack", "--pack-destination", tarballs)
	}
	v := version.Version
	main := filepath.Join(tarballs, "webmcp-bridge-"+v+".tgz")
	plat := filepath.Join(tarballs, "webmcp-bridge-"+nos+"-"+cpu+"-"+v+".tgz")
	prefix := t.TempDir()
	npmRun(prefix, "install", "--offline", "--no-audit", "--no-fund", plat, main)

	if b := npmRun(prefix, "exec", "--offline", "--", "webmcp-bridge", "--version"); !strings.Contains(b, "webmcp-shim "+v) {
		t.Errorf("npx webmcp-bridge --version:\n%s", b)
	}
	if b := npmRun(prefix, "exec", "--offline", "--", "webmcp-bridge", "install"); !strings.Contains(b, "Installed webmcp-host and webmcp-shim in") {
		t.Errorf("npx webmcp-bridge install:\n%s", b)
	}
	bin := filepath.Join(home, ".local", "bin")
	doc, _ := run(env, filepath.Join(bin, "webmcp-shim"), "doctor")
	for _, want := range []string{"ok       webmcp-shim and webmcp-host " + v + " in " + bin, "the browser may start " + filepath.Join(bin, "webmcp-host")} {
		if !strings.Contains(doc, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doc)
		}
	}
}

// lookPathIn finds file in the folders of path.
func lookPathIn(file, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, file)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
