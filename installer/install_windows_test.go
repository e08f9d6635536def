package installer

// The installer on Windows (run under Wine, which has a registry): the
// prebuilt webmcp-host.exe installs into a prefix, with the manifest in the
// install's folder and the registry values of the browsers found naming
// it; the installed doctor checks them; a second install changes nothing;
// the installed webmcp-host.exe uninstalls, removing the values that name
// this install's manifest and keeping another install's.

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/windows/registry"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// regKeys are the keys below HKCU that the test may create, parents first.
var regKeys = []string{
	`Software\Google`, `Software\Google\Chrome`, manifest.ChromeRegKey, manifest.HostKey(manifest.ChromeRegKey),
	`Software\BraveSoftware`, `Software\BraveSoftware\Brave-Browser`, manifest.BraveRegKey, manifest.HostKey(manifest.BraveRegKey),
	`Software\Mozilla`, manifest.FirefoxRegKey, manifest.HostKey(manifest.FirefoxRegKey),
}

// keyExists says whether HKCU\key exists.
func keyExists(key string) bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.QUERY_VALUE)
	if err == nil {
		k.Close()
	}
	return err == nil
}

func TestInstallWindows(t *testing.T) {
	bins := os.Getenv(bridgetest.BinDirEnv)
	if bins == "" {
		t.Skipf("needs the Windows binaries in $%s (.ci/wine/run)", bridgetest.BinDirEnv)
	}
	for _, k := range []string{manifest.HostKey(manifest.ChromeRegKey), manifest.HostKey(manifest.BraveRegKey), manifest.HostKey(manifest.FirefoxRegKey)} {
		if v, err := manifest.ReadRegistry(k); err == nil {
			t.Skipf("HKCU\\%s is set already (%s): not touching an install of this user", k, v)
		}
	}
	var existed []string
	for _, k := range regKeys {
		if keyExists(k) {
			existed = append(existed, k)
		}
	}
	t.Cleanup(func() {
		for i := len(regKeys) - 1; i >= 0; i-- {
			if !slices.Contains(existed, regKeys[i]) {
				manifest.RemoveRegistry(regKeys[i])
				manifest.RemoveEmptyKey(regKeys[i])
			}
		}
	})

	// Chrome and Firefox have run; Brave's program is installed for the
	// user alone.
	local := bridgetest.TempDir(t)
	os.MkdirAll(filepath.Join(local, "Google", "Chrome", "User Data"), 0o755)
	os.MkdirAll(filepath.Join(local, "Mozilla", "Firefox", "Profiles"), 0o755)
	brave := filepath.Join(local, "BraveSoftware", "Brave-Browser", "Application", "brave.exe")
	os.MkdirAll(filepath.Dir(brave), 0o755)
	os.WriteFile(brave, nil, 0o755)
	empty := bridgetest.TempDir(t)
	home := bridgetest.TempDir(t)
	prefix := filepath.Join(local, "Programs", "webmcp-bridge")
	env := append(os.Environ(), "LOCALAPPDATA="+local, "ProgramFiles="+empty, "ProgramFiles(x86)="+empty, "ProgramW6432="+empty,
		"USERPROFILE="+home, "HOME="+home, "APPDATA="+filepath.Join(home, "Roaming"), "PATH="+empty)
	ext, err := filepath.Abs(filepath.Join("..", "extension"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(bin string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		t.Logf("%s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), out)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		checkWidth(t, filepath.Base(bin)+" "+args[0], string(out))
		return string(out), 0
	}

	out, code := run(filepath.Join(bins, "webmcp-host.exe"), "install", "--prefix", prefix, "--extension", ext, "--user-data-dir", filepath.Join(home, "profile"))
	if code != 0 {
		t.Fatalf("install = %d", code)
	}
	mpath := filepath.Join(prefix, "share", "webmcp-bridge", "NativeMessagingHosts", manifest.FileName)
	ffpath := filepath.Join(prefix, "share", "webmcp-bridge", "firefox", "NativeMessagingHosts", manifest.FileName)
	host := filepath.Join(prefix, "bin", "webmcp-host.exe")
	for _, want := range []string{
		"browsers found: Chrome, Brave, Firefox",
		"wrote " + ffpath + " (Firefox's registry value names it)",
		`wrote HKCU\` + manifest.HostKey(manifest.FirefoxRegKey) + " (Firefox)",
		"Firefox add-on " + protocol.FirefoxAddonID + " may start " + host,
		`click "Load Temporary Add-on" and pick ` + filepath.Join(prefix, "share", "webmcp-bridge", "firefox-extension", "manifest.json"),
		"skipped, not installed: Chrome Beta, Chrome Dev, Chrome Canary, Chrome for Testing, Chromium, Edge",
		"nothing to write there: on Windows the browsers find the host through the registry",
		"wrote " + mpath,
		`wrote HKCU\` + manifest.HostKey(manifest.ChromeRegKey) + " (Chrome, Brave)",
		`wrote HKCU\` + manifest.HostKey(manifest.BraveRegKey) + " (Brave)",
		"Installed webmcp-host and webmcp-shim in " + filepath.Join(prefix, "bin"),
		"--user-data-dir=" + filepath.Join(home, "profile") + " too",
	} {
		if !strings.Contains(oneLine(out), want) {
			t.Errorf("install output lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "profile")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("install wrote into the --user-data-dir: %v", err)
	}
	for _, k := range []string{manifest.ChromeRegKey, manifest.BraveRegKey} {
		if v, err := manifest.ReadRegistry(manifest.HostKey(k)); err != nil || !strings.EqualFold(v, mpath) {
			t.Errorf("HKCU\\%s = %q, %v; want %s", manifest.HostKey(k), v, err, mpath)
		}
	}
	if _, err := manifest.ReadRegistry(manifest.HostKey(manifest.EdgeRegKey)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Edge, not installed, has a value: %v", err)
	}
	if m, err := manifest.ReadFile(mpath); err != nil || m.Path != host || !m.Allows(false) {
		t.Errorf("manifest %s: %+v, %v; want it to name %s", mpath, m, err, host)
	}
	// Firefox's value names a manifest of its own, with the add-on's ID.
	if v, err := manifest.ReadRegistry(manifest.HostKey(manifest.FirefoxRegKey)); err != nil || !strings.EqualFold(v, ffpath) {
		t.Errorf("HKCU\\%s = %q, %v; want %s", manifest.HostKey(manifest.FirefoxRegKey), v, err, ffpath)
	}
	if m, err := manifest.ReadFile(ffpath); err != nil || m.Path != host || !m.Allows(true) || m.Allows(false) {
		t.Errorf("Firefox's manifest %s: %+v, %v; want it to name %s and allow the add-on", ffpath, m, err, host)
	}
	record := filepath.Join(prefix, "share", "webmcp-bridge", installrec.FileName)
	rec, _, err := installrec.Load(record)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Of(installrec.RegValue)); n != 3 {
		t.Errorf("the record lists %d registry values, want 3: %+v", n, rec.Entries)
	}
	if len(rec.Of(installrec.File)) != 2 || len(rec.Of(installrec.Tree)) != 2 || len(rec.Of(installrec.Manifest)) != 2 {
		t.Errorf("install record: %+v", rec.Entries)
	}

	// The installed doctor checks the values and the manifest they name.
	shim := filepath.Join(prefix, "bin", "webmcp-shim.exe")
	out, _ = run(shim, "doctor", "--json")
	var report DoctorReport
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &report); err != nil {
		t.Fatalf("doctor --json: %v", err)
	}
	for _, want := range []string{
		`ok Chrome, Chrome Beta, Chrome Dev, Chrome Canary, Chrome for Testing, Brave: the browser may start ` + host,
		`ok Brave: the browser may start ` + host,
		`ok Firefox: the browser may start ` + host,
	} {
		if !report.has(want) {
			t.Errorf("doctor lacks %q: %+v", want, report.Checks)
		}
	}

	// Again, while the browser runs the installed host: nothing changes
	// but the host's file, which Windows keeps while it runs: it goes
	// aside.
	ctx := bridgetest.Context(t)
	running := exec.CommandContext(ctx, host, protocol.ExtensionOrigin, "--parent-window=0")
	running.Env = env
	stdin, err := running.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	log := bridgetest.NewLog(t, "webmcp-host")
	running.Stderr, running.Stdout = log, io.Discard
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- running.Wait() }()
	if _, err := log.Await(ctx, "listening on"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(record)
	out, code = run(filepath.Join(bins, "webmcp-host.exe"), "install", "--prefix", prefix, "--extension", ext)
	if code != 0 || strings.Contains(out, "wrote ") || !strings.Contains(out, "unchanged ") || !strings.Contains(out, "Updated ") {
		t.Errorf("second install = %d: wrote something, or did not say so", code)
	}
	if after, _ := os.ReadFile(record); string(after) != string(before) {
		t.Errorf("second install changed the record:\n%s\n---\n%s", before, after)
	}
	if _, err := os.Stat(host + ".old"); err != nil {
		t.Logf("no %s.old: the running host's file was replaced in place (%v)", host, err)
	}
	stdin.Close()
	bridgetest.Await(ctx, t, exited, "the host to exit")

	// Another install takes Chrome's key: the doctor says so, and the
	// uninstall keeps that value.
	other := filepath.Join(bridgetest.TempDir(t), "NativeMessagingHosts")
	om, _ := manifest.New(`C:\elsewhere\webmcp-host.exe`)
	opath, err := manifest.Write(om, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.WriteRegistry(manifest.HostKey(manifest.ChromeRegKey), opath); err != nil {
		t.Fatal(err)
	}
	out, _ = run(shim, "doctor")
	if !strings.Contains(oneLine(out), `C:\elsewhere\webmcp-host.exe, which is not an existing .exe`) {
		t.Errorf("doctor missed a value that names another install's manifest")
	}

	// The installed webmcp-host.exe removes its own install.
	out, code = run(host, "uninstall", "--prefix", prefix)
	if code != 0 {
		t.Errorf("uninstall = %d", code)
	}
	for _, want := range []string{
		`removed HKCU\` + manifest.HostKey(manifest.BraveRegKey) + " (Brave)",
		`kept HKCU\` + manifest.HostKey(manifest.ChromeRegKey) + " (Chrome, Brave): it names " + opath,
		"removed " + mpath,
		`removed HKCU\` + manifest.HostKey(manifest.FirefoxRegKey) + " (Firefox)",
		"removed " + ffpath,
		"removed " + host + ".old",
		"removed " + host + " (it runs this uninstall: moved to",
		"Removed the WebMCP bridge from " + prefix,
	} {
		if !strings.Contains(oneLine(out), want) {
			t.Errorf("uninstall output lacks %q", want)
		}
	}
	if v, err := manifest.ReadRegistry(manifest.HostKey(manifest.ChromeRegKey)); err != nil || v != opath {
		t.Errorf("uninstall changed another install's value: %q, %v", v, err)
	}
	if _, err := manifest.ReadRegistry(manifest.HostKey(manifest.BraveRegKey)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstall left Brave's value: %v", err)
	}
	for _, k := range []string{manifest.BraveRegKey, `Software\BraveSoftware`, manifest.FirefoxRegKey, `Software\Mozilla`} {
		if !slices.Contains(existed, k) && keyExists(k) {
			t.Errorf("uninstall left the key HKCU\\%s that the install made", k)
		}
	}
	if _, err := os.Stat(prefix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstall left %s: %v", prefix, err)
	}
	if o := oneLine(out); strings.Contains(o, "moved to ") {
		aside := strings.Fields(o[strings.Index(o, "moved to ")+len("moved to "):])[0]
		aside = strings.TrimSuffix(aside, ",")
		os.Remove(aside)
		os.Remove(filepath.Dir(aside))
	}
	out, _ = run(filepath.Join(bins, "webmcp-host.exe"), "uninstall", "--prefix", prefix)
	if !strings.Contains(out, "Nothing to uninstall") {
		t.Errorf("a second uninstall did not say there is nothing to do")
	}
}

// Without --prefix (after go install), install registers this binary where
// it is: the manifest in %LOCALAPPDATA%\webmcp-bridge\NativeMessagingHosts,
// the installed browsers' values naming it; uninstall without a record
// removes the values that name a manifest of this binary, and the manifest.
func TestInstallWindowsWithoutPrefix(t *testing.T) {
	edge := manifest.HostKey(manifest.EdgeRegKey)
	if v, err := manifest.ReadRegistry(edge); err == nil {
		t.Skipf("HKCU\\%s is set already (%s): not touching an install of this user", edge, v)
	}
	keys := []string{`Software\Microsoft`, `Software\Microsoft\Edge`, manifest.EdgeRegKey, edge}
	var existed []string
	for _, k := range keys {
		if keyExists(k) {
			existed = append(existed, k)
		}
	}
	t.Cleanup(func() {
		for i := len(keys) - 1; i >= 0; i-- {
			if !slices.Contains(existed, keys[i]) {
				manifest.RemoveRegistry(keys[i])
				manifest.RemoveEmptyKey(keys[i])
			}
		}
	})
	local, empty := bridgetest.TempDir(t), bridgetest.TempDir(t)
	os.MkdirAll(filepath.Join(local, "Microsoft", "Edge", "User Data"), 0o755)
	t.Setenv("LOCALAPPDATA", local)
	for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432"} {
		t.Setenv(v, empty)
	}
	var out, errs strings.Builder
	if code := Run("install", nil, &out, &errs); code != 0 {
		t.Fatalf("install = %d: %s", code, errs.String())
	}
	t.Log(out.String())
	mpath := filepath.Join(local, "webmcp-bridge", "NativeMessagingHosts", manifest.FileName)
	if v, err := manifest.ReadRegistry(edge); err != nil || !strings.EqualFold(v, mpath) {
		t.Errorf("HKCU\\%s = %q, %v; want %s", edge, v, err, mpath)
	}
	self, _ := selfPath()
	if m, err := manifest.ReadFile(mpath); err != nil || m.Path != self {
		t.Errorf("manifest: %+v, %v; want it to name %s", m, err, self)
	}
	out.Reset()
	if code := Run("uninstall", nil, &out, &errs); code != 0 {
		t.Fatalf("uninstall = %d: %s", code, errs.String())
	}
	t.Log(out.String())
	if _, err := manifest.ReadRegistry(edge); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstall left HKCU\\%s: %v", edge, err)
	}
	if _, err := os.Stat(mpath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstall left %s: %v", mpath, err)
	}
}
