package main

// The Windows archive: it holds the .exe binaries, the extension and
// install.ps1; under Wine (when set up, as .ci/wine/run does), its
// webmcp-host.exe installs from the unzipped folder with no Go (as
// install.ps1 runs it) and uninstalls.

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/manifest"
)

// wineBin is wine64 with the Go runtime's bcryptprimitives.dll stand-in in
// its prefix, or "" when Wine is not set up here.
func wineBin() string {
	w := "/usr/lib/wine/wine64"
	if _, err := os.Stat(w); err != nil {
		return ""
	}
	prefix := os.Getenv("WINEPREFIX")
	if prefix == "" {
		home, _ := os.UserHomeDir()
		prefix = filepath.Join(home, ".wine")
	}
	if _, err := os.Stat(filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")); err != nil {
		return ""
	}
	return w
}

// winPath is the Wine path of a Unix path (drive Z: is /).
func winPath(p string) string { return "Z:" + strings.ReplaceAll(p, "/", `\`) }

func TestWindowsArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release archive")
	}
	out := t.TempDir()
	if _, err := Build(Options{Source: "..", Out: out, Version: "9.8.7", Targets: []string{"windows/amd64"}}); err != nil {
		t.Fatal(err)
	}
	name := "webmcp-bridge_9.8.7_windows_amd64"
	zr, err := zip.OpenReader(filepath.Join(out, name+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	have := map[string]bool{}
	for _, f := range zr.File {
		have[strings.TrimPrefix(f.Name, name+"/")] = true
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if f.FileInfo().IsDir() {
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		r, _ := f.Open()
		w, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, r)
		r.Close()
		w.Close()
	}
	for _, f := range []string{"webmcp-host.exe", "webmcp-shim.exe", "install.ps1", "README.md", "LICENSE", "extension/manifest.json"} {
		if !have[f] {
			t.Errorf("the Windows archive lacks %s", f)
		}
	}

	wine := wineBin()
	if wine == "" {
		bridgetest.SkipOutsideCI(t, "no Wine set up here (.ci/wine/run sets it up)")
	}
	key := `HKCU\` + manifest.HostKey(manifest.EdgeRegKey)
	env := append(os.Environ(), "WINEDEBUG=-all", "PATH=/usr/lib/wine:"+os.Getenv("PATH"))
	wrun := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(wine, args...)
		cmd.Env = env
		b, err := cmd.CombinedOutput()
		t.Logf("%s:\n%s", strings.Join(args, " "), b)
		return string(b), err
	}
	if _, err := wrun("reg", "query", key); err == nil {
		t.Skipf("%s is set already: not touching it", key)
	}
	t.Cleanup(func() { wrun("reg", "delete", key, "/f") })
	prefix := winPath(filepath.Join(t.TempDir(), "webmcp-bridge"))
	host := winPath(filepath.Join(dir, name, "webmcp-host.exe"))
	b, err := wrun(host, "install", "--prefix", prefix, "--browser", "edge")
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	mpath := prefix + `\share\webmcp-bridge\NativeMessagingHosts\` + manifest.FileName
	for _, want := range []string{"wrote " + key + " (Edge)", "Installed webmcp-host and webmcp-shim in " + prefix + `\bin`} {
		if !strings.Contains(oneLine(b), want) {
			t.Errorf("install output lacks %q", want)
		}
	}
	if b, _ := wrun("reg", "query", key); !strings.Contains(b, mpath) {
		t.Errorf("%s does not name %s", key, mpath)
	}
	b, err = wrun(host, "uninstall", "--prefix", prefix)
	if err != nil || !strings.Contains(oneLine(b), "removed "+key+" (Edge)") || !strings.Contains(oneLine(b), "Removed the WebMCP bridge from") {
		t.Errorf("uninstall: %v", err)
	}
	if _, err := wrun("reg", "query", key); err == nil {
		t.Errorf("uninstall left %s", key)
	}
}

// oneLine joins wrapped output back into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
