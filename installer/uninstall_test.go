package installer

// The uninstaller against records that name more than the install wrote,
// and against the processes, the token and the runtime folder it finds.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
)

// sleepBin is found before a test's fakeHome empties PATH.
var sleepBin, sleepErr = exec.LookPath("sleep")

// fakeInstall lays out an install in a new prefix: its binaries (copies of
// sleep, so that tests can run them), the extension's folder and a record
// listing them, the folders it made and the lines given. The prefix and
// everything up to it may be entered by other users.
func fakeInstall(t *testing.T, lines ...string) (prefix, record string) {
	t.Helper()
	base, err := os.MkdirTemp("", "wmu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	prefix = filepath.Join(base, "prefix")
	share := filepath.Join(prefix, "share", "webmcp-bridge")
	bin := filepath.Join(prefix, "bin")
	ext := filepath.Join(share, "extension")
	for _, d := range []string{bin, ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if sleepErr != nil {
		t.Fatal(sleepErr)
	}
	b, err := os.ReadFile(sleepBin)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range installrec.Binaries {
		if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ext, "manifest.json"), []byte("{}\n"), 0o644)
	record = filepath.Join(share, installrec.FileName)
	var rec strings.Builder
	for _, d := range []string{prefix, filepath.Join(prefix, "share"), share, bin} {
		rec.WriteString("dir\t" + d + "\t\n")
	}
	rec.WriteString("file\t" + filepath.Join(bin, "webmcp-host") + "\t\n")
	rec.WriteString("file\t" + filepath.Join(bin, "webmcp-shim") + "\t\n")
	rec.WriteString("tree\t" + ext + "\t\n")
	for _, l := range lines {
		rec.WriteString(l + "\n")
	}
	if err := os.WriteFile(record, []byte(rec.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return prefix, record
}

// runUninstall runs webmcp-host uninstall --record record --no-browsers.
func runUninstall(t *testing.T, record string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs strings.Builder
	code = Run("uninstall", []string{"--record", record, "--no-browsers"}, &out, &errs)
	t.Logf("uninstall = %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	return code, out.String(), errs.String()
}

// oneLine joins wrapped output back into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestUninstallOnlyItsOwnPlaces: record lines that name a folder outside
// the install's places, an unrelated folder, a binary elsewhere, or a path
// through a symbolic link remove nothing; the uninstall says so and removes
// the rest.
func TestUninstallOnlyItsOwnPlaces(t *testing.T) {
	fakeHome(t)
	victim := t.TempDir()
	victimExt := filepath.Join(victim, "webmcp-bridge", "extension")
	os.MkdirAll(victimExt, 0o755)
	os.WriteFile(filepath.Join(victimExt, "precious"), []byte("x"), 0o644)
	victimBin := filepath.Join(victim, "bin")
	os.MkdirAll(victimBin, 0o755)
	os.WriteFile(filepath.Join(victimBin, "webmcp-host"), []byte("x"), 0o755)
	emptyDir := filepath.Join(victim, "emptyuserdir")
	os.MkdirAll(emptyDir, 0o755)

	t.Run("tree elsewhere", func(t *testing.T) {
		prefix, record := fakeInstall(t, "tree\t"+victimExt+"\t")
		code, _, errs := runUninstall(t, record)
		if !exists(filepath.Join(victimExt, "precious")) {
			t.Errorf("a tree line removed %s, outside the install", victimExt)
		}
		if code != 1 || !strings.Contains(oneLine(errs), victimExt) {
			t.Errorf("uninstall = %d, stderr %q: want 1 and the refused entry named", code, errs)
		}
		if exists(prefix) {
			t.Errorf("the refusal stopped the rest: %s is still there", prefix)
		}
	})
	t.Run("binary elsewhere", func(t *testing.T) {
		_, record := fakeInstall(t, "file\t"+filepath.Join(victimBin, "webmcp-host")+"\t")
		if code, _, _ := runUninstall(t, record); code != 1 || !exists(filepath.Join(victimBin, "webmcp-host")) {
			t.Errorf("uninstall = %d; a file line removed a binary outside the prefix: %v", code, exists(filepath.Join(victimBin, "webmcp-host")))
		}
	})
	t.Run("unrelated dir", func(t *testing.T) {
		prefix, record := fakeInstall(t, "dir\t"+emptyDir+"\t")
		_, out, _ := runUninstall(t, record)
		if !exists(emptyDir) {
			t.Errorf("a dir line removed %s, which held nothing of the install", emptyDir)
		}
		if !strings.Contains(oneLine(out), "kept folder "+emptyDir) {
			t.Errorf("uninstall did not say it kept %s", emptyDir)
		}
		if exists(prefix) {
			t.Errorf("the install's own folders stayed: %s", prefix)
		}
	})
	t.Run("linked bin", func(t *testing.T) {
		prefix, record := fakeInstall(t)
		bin := filepath.Join(prefix, "bin")
		os.RemoveAll(bin)
		os.Symlink(victimBin, bin)
		code, _, errs := runUninstall(t, record)
		if !exists(filepath.Join(victimBin, "webmcp-host")) {
			t.Errorf("uninstall removed %s through the link %s", filepath.Join(victimBin, "webmcp-host"), bin)
		}
		if code != 1 || !strings.Contains(oneLine(errs), bin+" is a symbolic link") {
			t.Errorf("uninstall = %d, stderr %q: want 1 and the link named", code, errs)
		}
		if exists(filepath.Join(prefix, "share")) {
			t.Errorf("the refusal stopped the rest: %s is still there", filepath.Join(prefix, "share"))
		}
	})
	t.Run("linked manifest folder", func(t *testing.T) {
		prefix, record := fakeInstall(t)
		victimNM := filepath.Join(victim, "chrome", "NativeMessagingHosts")
		m, _ := manifest.New(filepath.Join(prefix, "bin", "webmcp-host"))
		if _, err := manifest.Write(m, victimNM); err != nil {
			t.Fatal(err)
		}
		profile := t.TempDir()
		os.Symlink(victimNM, filepath.Join(profile, "NativeMessagingHosts"))
		path := filepath.Join(profile, "NativeMessagingHosts", manifest.FileName)
		f, _ := os.OpenFile(record, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("manifest\t" + path + "\t--user-data-dir " + profile + "\n")
		f.Close()
		code, _, errs := runUninstall(t, record)
		if _, err := manifest.Read(victimNM); err != nil {
			t.Errorf("uninstall removed the manifest behind the link: %v", err)
		}
		if code != 1 || !strings.Contains(oneLine(errs), "is a symbolic link") {
			t.Errorf("uninstall = %d, stderr %q: want 1 and the link named", code, errs)
		}
	})
	t.Run("manifest of another install", func(t *testing.T) {
		_, record := fakeInstall(t)
		profile := t.TempDir()
		nm := filepath.Join(profile, "NativeMessagingHosts")
		m, _ := manifest.New("/elsewhere/bin/webmcp-host")
		manifest.Write(m, nm)
		f, _ := os.OpenFile(record, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("manifest\t" + filepath.Join(nm, manifest.FileName) + "\tChromium\n")
		f.Close()
		_, out, _ := runUninstall(t, record)
		if _, err := manifest.Read(nm); err != nil {
			t.Errorf("uninstall removed a manifest that names another install's host: %v", err)
		}
		if !strings.Contains(oneLine(out), "names /elsewhere/bin/webmcp-host") {
			t.Errorf("uninstall did not say why it kept the manifest")
		}
	})
}

func TestStatusUIDs(t *testing.T) {
	status := "Name:\tsleep\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1001\t1002\t1003\nGid:\t1000\t1000\t1000\t1000\n"
	if u, e := statusUIDs([]byte(status)); u != 1000 || e != 1001 {
		t.Errorf("statusUIDs = %d, %d; want 1000, 1001", u, e)
	}
	if u, e := statusUIDs([]byte("Name:\tx\n")); u != -1 || e != -1 {
		t.Errorf("statusUIDs of no Uid line = %d, %d; want -1, -1", u, e)
	}
	if (proc{uid: os.Getuid(), euid: os.Getuid() + 1}).mine() {
		t.Error("a process of another effective user counts as mine")
	}
}

// TestUninstallTokenAndRuntimeDir: the HTTP token goes, and so does the
// runtime folder when it is empty and private; anything else is named.
func TestUninstallTokenAndRuntimeDir(t *testing.T) {
	home := fakeHome(t)
	tokenDir := filepath.Join(home, ".config", "webmcp-bridge")
	os.MkdirAll(tokenDir, 0o700)
	os.WriteFile(filepath.Join(tokenDir, "http-token"), []byte("secret\n"), 0o600)
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	run := filepath.Join(rt, "webmcp")
	os.Mkdir(run, 0o700)
	results := filepath.Join(home, ".cache", "webmcp-bridge", "results")
	os.MkdirAll(results, 0o700)

	_, record := fakeInstall(t)
	code, out, _ := runUninstall(t, record)
	out = oneLine(out)
	if code != 0 {
		t.Errorf("uninstall = %d", code)
	}
	for _, want := range []string{"removed the HTTP token " + filepath.Join(tokenDir, "http-token"), "removed folder " + tokenDir,
		"removed the runtime folder " + run, "left " + results} {
		if !strings.Contains(out, want) {
			t.Errorf("uninstall output lacks %q", want)
		}
	}
	if exists(tokenDir) || exists(run) {
		t.Errorf("uninstall left the token's folder (%v) or the runtime folder (%v)", exists(tokenDir), exists(run))
	}
	if !exists(results) || !exists(rt) {
		t.Errorf("uninstall removed the results (%v) or XDG_RUNTIME_DIR (%v)", exists(results), exists(rt))
	}

	// A runtime folder that holds something, or is not private, stays.
	os.Mkdir(run, 0o700)
	os.WriteFile(filepath.Join(run, "host-1.sock"), nil, 0o600)
	_, record = fakeInstall(t)
	if _, out, _ = runUninstall(t, record); !strings.Contains(oneLine(out), "kept the runtime folder "+run+": it holds host-1.sock") || !exists(run) {
		t.Errorf("a runtime folder with a socket in it: %v", exists(run))
	}
	os.Remove(filepath.Join(run, "host-1.sock"))
	os.Chmod(run, 0o755)
	_, record = fakeInstall(t)
	if _, out, _ = runUninstall(t, record); !strings.Contains(oneLine(out), "left the runtime folder") || !exists(run) {
		t.Errorf("a runtime folder open to others: %v", exists(run))
	}
	os.Chmod(run, 0o700)
	t.Setenv(endpoint.RuntimeDirEnv, run)
	_, record = fakeInstall(t)
	if _, out, _ = runUninstall(t, record); !strings.Contains(oneLine(out), "left the runtime folder "+run+": $"+endpoint.RuntimeDirEnv) || !exists(run) {
		t.Errorf("the runtime folder of $%s: %v", endpoint.RuntimeDirEnv, exists(run))
	}
}

func TestWrap(t *testing.T) {
	long := "/" + strings.Repeat("x", 90)
	got := wrap("removed "+long+" (Chromium)\nshort one", 20, "  ")
	want := "removed\n  " + long + "\n  (Chromium)\nshort one\n"
	if got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
	if got := wrap("aaaa bbbb cccc", 9, "  "); got != "aaaa bbbb\n  cccc\n" {
		t.Errorf("wrap = %q", got)
	}
}
