package main

// The release command end to end: every release file is built once (all
// systems, the npm packages, the Claude Desktop bundle, with a release
// tag's version), and TestRelease checks them: SHA256SUMS holds, each
// archive has its system's binaries and installer and the extension at
// that version, npm pack packs each package, the bundle's manifest passes
// MCPB's schema and names a binary for each system it claims; then this
// machine's archive and npm packages are installed with no Go on PATH
// and an empty HOME, and the installed webmcp-shim passes doctor and lists
// a page's tool (through the installed webmcp-host, with internal/fakeext
// as the browser). The version is the same everywhere.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

func TestMain(m *testing.M) { bridgetest.Main(m) }

// tagVersion is the release tag the test builds: not the committed
// version, so that it shows the tag reaches every file.
const tagVersion = "9.8.7"

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

func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release")
	}
	v := tagVersion
	out := t.TempDir()
	// The command as people run it, in a process of its own: in this one,
	// the race detector would make its compression many times slower.
	cmd := exec.Command("go", "run", "./release", "-npm", "-version", "v"+v, "-out", out)
	cmd.Dir = ".."
	cmd.Stderr = bridgetest.NewLog(t, "release")
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run ./release: %v\n%s", err, stdout)
	}
	var names []string
	files := strings.Split(strings.TrimSuffix(string(stdout), "\n"), "\n")
	for _, line := range files {
		path, size, _ := strings.Cut(line, "\t")
		names = append(names, filepath.Base(path))
		if fi, err := os.Stat(path); err != nil || fmt.Sprint(fi.Size(), " bytes") != size || fi.Size() == 0 {
			t.Errorf("%s: %v, the command said %s", path, err, size)
		}
		t.Logf("%s\t%s", filepath.Base(path), size)
	}
	var want []string
	for _, target := range Targets {
		goos, goarch, _ := strings.Cut(target, "/")
		want = append(want, archiveName(v, goos, goarch))
	}
	ext, xpi, mcpb := "webmcp-bridge-extension_"+v+".zip", "webmcp-bridge-firefox_"+v+".xpi", "webmcp-bridge_"+v+".mcpb"
	want = append(want, ext, StoreZipPrefix+v+".zip", xpi, mcpb, "SHA256SUMS")
	if !slices.Equal(names, want) {
		t.Fatalf("release files = %q, want %q", names, want)
	}

	t.Run("SHA256SUMS", func(t *testing.T) {
		sum, err := exec.LookPath("sha256sum")
		args := []string{"-c", "SHA256SUMS"}
		if err != nil {
			if sum, err = exec.LookPath("shasum"); err != nil {
				bridgetest.SkipOutsideCI(t, "no sha256sum or shasum")
			}
			args = append([]string{"-a", "256"}, args...)
		}
		cmd := exec.Command(sum, args...)
		cmd.Dir = out
		b, err := cmd.CombinedOutput()
		if err != nil || strings.Count(string(b), ": OK") != len(files)-1 {
			t.Errorf("%s -c SHA256SUMS: %v\n%s", sum, err, b)
		}
	})

	// Each archive: its system's binaries at the version, its installer,
	// the extension at the version, nothing of the source tree.
	archives := map[string]map[string][]byte{}
	for _, target := range Targets {
		goos, goarch, _ := strings.Cut(target, "/")
		fs, err := readArchive(filepath.Join(out, archiveName(v, goos, goarch)))
		if err != nil {
			t.Fatal(err)
		}
		archives[target] = fs
	}
	for _, target := range Targets {
		goos, goarch, _ := strings.Cut(target, "/")
		t.Run("archive "+target, func(t *testing.T) {
			fs := archives[target]
			exe := map[bool]string{true: ".exe"}[goos == "windows"]
			for _, b := range []string{"webmcp-host" + exe, "webmcp-shim" + exe} {
				if err := isExecutableFor(fs[b], goos, goarch); err != nil {
					t.Errorf("%s: %v", b, err)
				}
				if !bytes.Contains(fs[b], []byte(v)) {
					t.Errorf("%s lacks the version %s", b, v)
				}
			}
			installers := map[string]bool{"install.sh": goos != "windows", "install.ps1": goos == "windows"}
			for f, want := range installers {
				if _, got := fs[f]; got != want {
					t.Errorf("the archive holds %s: %v, want %v", f, got, want)
				}
			}
			for _, f := range []string{"README.md", "LICENSE", "extension/background.js"} {
				if _, ok := fs[f]; !ok {
					t.Errorf("the archive lacks %s", f)
				}
			}
			for f := range fs {
				if f == "go.mod" || strings.HasPrefix(f, "extension/test/") {
					t.Errorf("the archive holds %s", f)
				}
			}
			checkExtensionManifest(t, fs["extension/manifest.json"], v)
		})
	}

	t.Run("Firefox add-on", func(t *testing.T) {
		fs, err := readArchive(filepath.Join(out, xpi))
		if err != nil {
			t.Fatal(err)
		}
		for f := range fs {
			if strings.HasPrefix(f, "test/") {
				t.Errorf("the .xpi holds the extension's tests: %s", f)
			}
		}
		var m struct {
			Version                 string
			Key                     string
			BrowserSpecificSettings struct {
				Gecko struct{ ID string }
			} `json:"browser_specific_settings"`
		}
		if err := json.Unmarshal(fs["manifest.json"], &m); err != nil || m.Version != v || m.Key != "" || m.BrowserSpecificSettings.Gecko.ID != protocol.FirefoxAddonID {
			t.Errorf("the .xpi's manifest.json (%v): version %q, key %q, gecko id %q; want %s, none, %s", err, m.Version, m.Key, m.BrowserSpecificSettings.Gecko.ID, v, protocol.FirefoxAddonID)
		}
		if _, ok := fs["background.js"]; !ok {
			t.Errorf("the .xpi lacks background.js")
		}
	})

	t.Run("extension zip", func(t *testing.T) {
		fs, err := readArchive(filepath.Join(out, ext))
		if err != nil {
			t.Fatal(err)
		}
		for f := range fs {
			if strings.HasPrefix(f, "test/") {
				t.Errorf("the extension's zip holds its tests: %s", f)
			}
		}
		checkExtensionManifest(t, fs["manifest.json"], v)
	})

	t.Run("bundle", func(t *testing.T) {
		fs, err := readArchive(filepath.Join(out, mcpb))
		if err != nil {
			t.Fatal(err)
		}
		var manifest any
		if err := json.Unmarshal(fs["manifest.json"], &manifest); err != nil {
			t.Fatalf("the bundle's manifest.json: %v", err)
		}
		for _, p := range mcpbManifestSchema.check(manifest, "manifest") {
			t.Errorf("the bundle's manifest.json does not fit MCPB %s: %s", mcpbVersion, p)
		}
		var m mcpbManifest
		json.Unmarshal(fs["manifest.json"], &m)
		if m.Version != v || m.ManifestVersion != mcpbVersion || m.Server.Type != "binary" {
			t.Errorf("the bundle's manifest: version %q, manifest_version %q, server type %q", m.Version, m.ManifestVersion, m.Server.Type)
		}
		if _, ok := fs[m.Server.EntryPoint]; !ok {
			t.Errorf("the bundle lacks its entry point %s", m.Server.EntryPoint)
		}
		if _, ok := fs[m.Icon]; !ok {
			t.Errorf("the bundle lacks its icon %s", m.Icon)
		}
		// What Claude Desktop runs on each system it may install the bundle
		// on: the command after the system's override, ${__dirname} the
		// bundle's folder, is that system's webmcp-shim, for each CPU.
		want := map[string][]string{"darwin": {"darwin/amd64", "darwin/arm64"}, "win32": {"windows/amd64"}}
		if !slices.Equal(m.Compatibility.Platforms, []string{"darwin", "win32"}) {
			t.Errorf("the bundle is for %q, want darwin and win32 (Claude Desktop has no Linux build)", m.Compatibility.Platforms)
		}
		for _, platform := range m.Compatibility.Platforms {
			command := m.Server.MCPConfig.Command
			if o, ok := m.Server.MCPConfig.PlatformOverrides[platform]; ok && o.Command != "" {
				command = o.Command
			}
			rel, ok := strings.CutPrefix(command, "${__dirname}/")
			if !ok {
				t.Errorf("%s: the command %q is not in the bundle (${__dirname}/...)", platform, command)
				continue
			}
			bin, ok := fs[rel]
			if !ok {
				t.Errorf("%s: the bundle lacks the command %s", platform, rel)
				continue
			}
			for _, target := range want[platform] {
				shim := archives[target]["webmcp-shim"+map[bool]string{true: ".exe"}[platform == "win32"]]
				got := bin
				if platform == "darwin" {
					if got, err = fatSlice(bin, target); err != nil {
						t.Errorf("%s: %s: %v", platform, rel, err)
						continue
					}
				}
				if len(shim) == 0 || !bytes.Equal(got, shim) {
					t.Errorf("%s: %s is not the webmcp-shim of the %s archive", platform, rel, target)
				}
			}
		}
		// Where Wine is set up (.ci/wine/run), the Windows command runs.
		if wine := wineBin(); wine != "" {
			exe := filepath.Join(t.TempDir(), "webmcp-shim.exe")
			if err := os.WriteFile(exe, fs["server/webmcp-shim.exe"], 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(wine, exe, "--version")
			cmd.Env = append(os.Environ(), "WINEDEBUG=-all")
			b, err := cmd.Output()
			if err != nil || strings.TrimSpace(string(b)) != "webmcp-shim "+v {
				t.Errorf("wine server/webmcp-shim.exe --version = %q, %v", b, err)
			}
			t.Logf("wine server/webmcp-shim.exe --version: %s", b)
		}
	})

	// This machine's archive, unpacked with the system's tar, as people
	// do, and installed.
	t.Run("archive installs without Go", func(t *testing.T) {
		if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
			t.Skip("install.sh runs on Linux and macOS")
		}
		name := "webmcp-bridge_" + v + "_" + runtime.GOOS + "_" + runtime.GOARCH
		unpacked := t.TempDir()
		if b, err := exec.Command("tar", "-xzf", filepath.Join(out, name+".tar.gz"), "-C", unpacked).CombinedOutput(); err != nil {
			t.Fatalf("tar -xzf: %v\n%s", err, b)
		}
		dir := filepath.Join(unpacked, name)

		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
		rt := bridgetest.RuntimeDir(t)
		env := []string{"PATH=" + noGoPath(t), "HOME=" + home, "LANG=C", endpoint.RuntimeDirEnv + "=" + rt}
		b, err := run(env, filepath.Join(dir, "install.sh"))
		if err != nil {
			t.Fatalf("install.sh: %v\n%s", err, b)
		}
		t.Logf("install.sh:\n%s", b)
		if !strings.Contains(b, "Installed webmcp-host and webmcp-shim in") {
			t.Errorf("install.sh says:\n%s", b)
		}
		bin := filepath.Join(home, ".local", "bin")
		for _, f := range []string{"webmcp-host", "webmcp-shim"} {
			got, _ := os.ReadFile(filepath.Join(bin, f))
			want, _ := os.ReadFile(filepath.Join(dir, f))
			if len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("installed %s is not the archive's", f)
			}
			if b, err := run(env, filepath.Join(bin, f), "--version"); err != nil || b != f+" "+v+"\n" {
				t.Errorf("%s --version = %q, %v; want %s %s", f, b, err, f, v)
			}
		}
		checkExtensionManifest(t, readFile(t, filepath.Join(home, ".local", "share", "webmcp-bridge", "extension", "manifest.json")), v)
		checkInstalled(t, env, rt, bin, v, filepath.Join(bin, "webmcp-shim"))
	})

	// The npm packages, packed with npm pack and installed from those
	// tarballs into an empty prefix, with no Go on PATH and no registry:
	// npx webmcp-bridge install runs the installer on the platform
	// package's binaries, and webmcp-bridge (the package's bin) runs
	// webmcp-shim.
	t.Run("npm", func(t *testing.T) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			bridgetest.SkipOutsideCI(t, "no npm")
		}
		node, _ := exec.LookPath("node")
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, ".config", "chromium"), 0o700)
		path := filepath.Dir(npm) + ":" + filepath.Dir(node) + ":" + noGoPath(t)
		if _, err := lookPathIn("go", path); err == nil {
			bridgetest.SkipOutsideCI(t, "go is beside npm or node ("+path+"), so the package cannot be run without go")
		}
		rt := bridgetest.RuntimeDir(t)
		env := []string{"PATH=" + path, "HOME=" + home, "LANG=C", endpoint.RuntimeDirEnv + "=" + rt,
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
		// Every package packs, at the version.
		tarballs := t.TempDir()
		pkgs, _ := os.ReadDir(filepath.Join(out, "npm"))
		if len(pkgs) != len(Targets)+1 {
			t.Errorf("%d npm packages, want %d", len(pkgs), len(Targets)+1)
		}
		for _, p := range pkgs {
			dir := filepath.Join(out, "npm", p.Name())
			var pkg struct {
				Name, Version        string
				OptionalDependencies map[string]string
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "package.json")), &pkg); err != nil {
				t.Fatalf("%s/package.json: %v", p.Name(), err)
			}
			if pkg.Version != v {
				t.Errorf("%s: version %q, want %s", pkg.Name, pkg.Version, v)
			}
			for dep, dv := range pkg.OptionalDependencies {
				if dv != v {
					t.Errorf("%s: %s@%s, want %s", pkg.Name, dep, dv, v)
				}
			}
			npmRun(dir, "pack", "--pack-destination", tarballs)
			tgz := strings.ReplaceAll(strings.TrimPrefix(pkg.Name, "@"), "/", "-") + "-" + v + ".tgz"
			if _, err := os.Stat(filepath.Join(tarballs, tgz)); err != nil {
				t.Errorf("npm pack of %s: %v", pkg.Name, err)
			}
		}
		if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
			t.Skip("install.sh runs on Linux and macOS")
		}
		nos, cpu := npmPlatform(runtime.GOOS, runtime.GOARCH)
		prefix := t.TempDir()
		npmRun(prefix, "install", "--offline", "--no-audit", "--no-fund",
			filepath.Join(tarballs, "webmcp-bridge-"+nos+"-"+cpu+"-"+v+".tgz"), filepath.Join(tarballs, "webmcp-bridge-"+v+".tgz"))

		if b := npmRun(prefix, "exec", "--offline", "--", "webmcp-bridge", "--version"); b != "webmcp-shim "+v+"\n" {
			t.Errorf("npx webmcp-bridge --version = %q", b)
		}
		b := npmRun(prefix, "exec", "--offline", "--", "webmcp-bridge", "install")
		t.Logf("npx webmcp-bridge install:\n%s", b)
		if !strings.Contains(b, "Installed webmcp-host and webmcp-shim in") {
			t.Errorf("npx webmcp-bridge install:\n%s", b)
		}
		// The steps it prints name the npm command, not the script it ran.
		if said := strings.Join(strings.Fields(b), " "); !strings.Contains(said, "needs npx webmcp-bridge install --user-data-dir DIR") || strings.Contains(said, "install.sh") {
			t.Errorf("npx webmcp-bridge install names install.sh, or not itself, in its steps:\n%s", b)
		}
		bin := filepath.Join(home, ".local", "bin")
		if b, err := run(env, filepath.Join(bin, "webmcp-host"), "--version"); err != nil || b != "webmcp-host "+v+"\n" {
			t.Errorf("webmcp-host --version = %q, %v", b, err)
		}
		checkExtensionManifest(t, readFile(t, filepath.Join(home, ".local", "share", "webmcp-bridge", "extension", "manifest.json")), v)
		// An agent may name the installed shim or the package's command.
		checkInstalled(t, env, rt, bin, v, filepath.Join(bin, "webmcp-shim"), filepath.Join(prefix, "node_modules", ".bin", "webmcp-bridge"))
		// doctor's advice names the command that made the install.
		profile := t.TempDir()
		doc, _ := run(env, filepath.Join(bin, "webmcp-shim"), "doctor", "--user-data-dir", profile)
		if !strings.Contains(doc, "run npx webmcp-bridge install --user-data-dir "+profile) || strings.Contains(doc, "install.sh") {
			t.Errorf("doctor after npx webmcp-bridge install does not name it, or names install.sh:\n%s", doc)
		}
	})
}

// checkInstalled starts a browser (the fake extension) that starts the
// installed webmcp-host, whose page has an echo tool; then doctor says all
// is well, and each MCP server command in servers, started as an agent
// starts it, lists the page's tool.
func checkInstalled(t *testing.T, env []string, rt, bin, v string, servers ...string) {
	t.Helper()
	fx := bridgetest.StartExt(t, fakeext.Options{HostBinary: filepath.Join(bin, "webmcp-host"), RuntimeDir: rt, Handler: bridgetest.NewPage().Serve})
	if err := fx.Hello(); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostBrowser(t, fx.Socket())
	if err := fx.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, fx.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })

	doc, err := run(env, filepath.Join(bin, "webmcp-shim"), "doctor")
	if err != nil {
		t.Errorf("doctor: %v\n%s", err, doc)
	}
	t.Logf("webmcp-shim doctor:\n%s", doc)
	for _, want := range []string{"ok       webmcp-shim and webmcp-host " + v + " in " + bin,
		"the browser may start " + filepath.Join(bin, "webmcp-host"), "webmcp-host " + v + ", extension", "1 tool", "All good"} {
		if !strings.Contains(doc, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doc)
		}
	}
	for _, server := range servers {
		cmd := exec.Command(server)
		cmd.Env = env
		cmd.Stderr = bridgetest.NewLog(t, filepath.Base(server))
		c := bridgetest.ConnectMCP(t, &mcp.CommandTransport{Command: cmd})
		tools := c.AwaitTools(bridgetest.Context(t), "the page's echo tool from "+server, func(tools map[string]*mcp.Tool) bool {
			return slices.ContainsFunc(bridgetest.Names(tools), func(n string) bool { return strings.Contains(n, "echo") })
		})
		t.Logf("tools/list through %s: %q", server, bridgetest.Names(tools))
	}
}

// checkExtensionManifest checks that an extension's manifest.json has
// version v and keeps its key (the unpacked ID).
func checkExtensionManifest(t *testing.T, b []byte, v string) {
	t.Helper()
	var manifest struct{ Version, Key string }
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Errorf("the extension's manifest.json: %v", err)
	}
	if manifest.Version != v || manifest.Key == "" {
		t.Errorf("the extension's manifest.json: version %q, key %q; want version %s and the key (the unpacked ID)", manifest.Version, manifest.Key, v)
	}
}

func archiveName(v, goos, goarch string) string {
	name := "webmcp-bridge_" + v + "_" + goos + "_" + goarch
	if goos == "windows" {
		return name + ".zip"
	}
	return name + ".tar.gz"
}

// readArchive returns the regular files of a .tar.gz or zip file (an
// .mcpb is a zip), by path, without the one top folder an archive has.
func readArchive(file string) (map[string][]byte, error) {
	out := map[string][]byte{}
	add := func(name string, r io.Reader) error {
		if strings.HasPrefix(name, "webmcp-bridge_") {
			_, name, _ = strings.Cut(name, "/")
		}
		b, err := io.ReadAll(r)
		out[name] = b
		return err
	}
	if strings.HasSuffix(file, ".tar.gz") {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			if h.Typeflag == tar.TypeReg {
				if err := add(h.Name, tr); err != nil {
					return nil, err
				}
			}
		}
	}
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		err = add(f.Name, r)
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isExecutableFor says why b is not an executable for goos/goarch.
func isExecutableFor(b []byte, goos, goarch string) error {
	r := bytes.NewReader(b)
	var got string
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return err
		}
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return err
		}
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return err
		}
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if got != goarch {
		return fmt.Errorf("an executable for %s/%q, not %s/%s", goos, got, goos, goarch)
	}
	return nil
}

// fatSlice is the Mach-O file for target's CPU in the universal binary b.
func fatSlice(b []byte, target string) ([]byte, error) {
	ff, err := macho.NewFatFile(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	for _, a := range ff.Arches {
		if err := isExecutableFor(b[a.Offset:a.Offset+a.Size], "darwin", strings.TrimPrefix(target, "darwin/")); err == nil {
			if a.Offset%(1<<a.Align) != 0 {
				return nil, fmt.Errorf("the %s slice is not at its alignment", target)
			}
			return b[a.Offset : a.Offset+a.Size], nil
		}
	}
	return nil, fmt.Errorf("no slice for %s", target)
}

// run runs a command with env and returns its output.
func run(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	return b
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

// A Windows archive gets install.ps1, the others install.sh.
func TestInstallers(t *testing.T) {
	both := []entry{{"install.sh", 0o755, []byte("sh")}, {"install.ps1", 0o644, []byte("ps1")}}
	for _, tc := range []struct {
		goos    string
		scripts []entry
		want    []string
	}{
		{"linux", both, []string{"install.sh"}},
		{"darwin", both, []string{"install.sh"}},
		{"windows", both, []string{"install.ps1"}},
		{"windows", both[:1], nil},
	} {
		var got []string
		for _, e := range installers(tc.goos, tc.scripts) {
			got = append(got, e.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("installers(%s, %d scripts) = %q, want %q", tc.goos, len(tc.scripts), got, tc.want)
		}
	}
}
