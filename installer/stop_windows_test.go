package installer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/stopevent"
	"github.com/webmcp-bridge/bridge/protocol"
)

// helperEnv makes a run of this test binary a process for stopProcesses
// to stop: "graceful" waits on its stop event and exits 0 when it is set,
// "deaf" has one but never looks at it, "stubborn" has none; they run
// until they are ended (or their stdin closes).
const helperEnv = "WEBMCP_TEST_STOP_HELPER"

// TestStopHelperProcess is not a test: see helperEnv.
func TestStopHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "graceful":
		ctx, stop := stopevent.Notify(context.Background())
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		os.Exit(0)
	case "deaf":
		_, stop := stopevent.Notify(context.Background())
		defer stop()
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin) // never looks at its stop event
		os.Exit(3)
	case "stubborn":
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin) // open until the test ends
		os.Exit(3)
	default:
		t.Skip("run by TestStopProcesses only")
	}
}

// copyTo copies the file src to dst.
func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// start starts bin with args (and env added) and waits until it says it
// is ready: the line ready on stdout, or, when ready is "", at once. Its
// stdin stays open until the test ends.
func start(t *testing.T, bin, ready string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	if ready != "" {
		line, err := bufio.NewReader(out).ReadString('\n')
		if strings.TrimSpace(line) != ready {
			t.Fatalf("%s said %q (%v), not %s; stderr: %s", bin, line, err, ready, errb.String())
		}
	}
	go io.Copy(io.Discard, out)
	return cmd
}

// exitCode waits for cmd and returns its exit code; -1 when it has not
// exited within a minute (a hang guard: then it was not stopped).
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		return -1
	}
}

// TestStopProcesses: the user's processes that run one of the install's
// binaries (named without .exe, as the install record has them) are
// stopped (also one that runs the binary an update put aside, .exe.old):
// one that has a stop event through it (it exits by itself, code
// 0), one that has none, or does not exit within stopWait once its event
// is set, with TerminateProcess; the endpoint such a host left is removed.
// A process of another binary runs on.
func TestStopProcesses(t *testing.T) {
	dir := bridgetest.TempDir(t)
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	self, _ := os.Executable()
	for _, name := range []string{"webmcp-host.exe", "webmcp-host.exe.old", "webmcp-shim.exe", "WEBMCP-SHIM.EXE", "other.exe"} {
		copyTo(t, self, filepath.Join(bin, name))
	}
	run := filepath.Join(dir, "run")
	if err := endpoint.EnsureRuntimeDir(run); err != nil {
		t.Fatal(err)
	}
	t.Setenv(endpoint.RuntimeDirEnv, run)
	helper := "-test.run=^TestStopHelperProcess$"
	graceful := start(t, filepath.Join(bin, "webmcp-host.exe"), "ready", []string{helperEnv + "=graceful"}, helper)
	stubborn := start(t, filepath.Join(bin, "webmcp-shim.exe"), "ready", []string{helperEnv + "=stubborn"}, helper)
	old := start(t, filepath.Join(bin, "webmcp-host.exe.old"), "ready", []string{helperEnv + "=graceful"}, helper)
	deaf := start(t, filepath.Join(bin, "WEBMCP-SHIM.EXE"), "ready", []string{helperEnv + "=deaf"}, helper)
	other := start(t, filepath.Join(bin, "other.exe"), "ready", []string{helperEnv + "=graceful"}, helper)
	// An endpoint of the stubborn one, as a host that is ended leaves it.
	left := endpoint.SocketPath(run, stubborn.Process.Pid)
	if err := os.WriteFile(left, []byte(`\\.\pipe\webmcp-1-ab`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	defer func(w time.Duration) { stopWait = w }(stopWait)
	stopWait = 3 * time.Second // a bound for the deaf one only
	var errs strings.Builder
	stopped := stopProcesses([]string{filepath.Join(bin, "webmcp-host"), filepath.Join(bin, "webmcp-shim")}, &errs)
	var pids []int
	for _, p := range stopped {
		pids = append(pids, p.pid)
	}
	want := []int{graceful.Process.Pid, stubborn.Process.Pid, deaf.Process.Pid, old.Process.Pid}
	slices.Sort(want)
	if !slices.Equal(pids, want) {
		t.Errorf("stopped %v, want %v", stopped, want)
	}
	// The ones that were ended are named, with why.
	for _, c := range []struct {
		cmd *exec.Cmd
		why string
	}{{stubborn, "it has no stop event"}, {deaf, "it did not stop within 3s of being asked"}} {
		if want := fmt.Sprintf("(pid %d) with TerminateProcess: %s", c.cmd.Process.Pid, c.why); !strings.Contains(oneLine(errs.String()), want) {
			t.Errorf("stderr %q does not say %q", errs.String(), want)
		}
	}
	if n := strings.Count(errs.String(), "webmcp-host uninstall:"); n != 2 {
		t.Errorf("stderr says %d things, want the two ended ones:\n%s", n, errs.String())
	}
	if code := exitCode(t, graceful); code != 0 {
		t.Errorf("the process with a stop event exited %d, want 0 (by itself)", code)
	}
	if code := exitCode(t, old); code != 0 {
		t.Errorf("the process of the binary an update put aside exited %d, want 0 (by itself)", code)
	}
	if code := exitCode(t, stubborn); code != terminatedCode {
		t.Errorf("the process without one exited %d, want %d (TerminateProcess)", code, terminatedCode)
	}
	if code := exitCode(t, deaf); code != terminatedCode {
		t.Errorf("the process that did not stop when asked exited %d, want %d (TerminateProcess)", code, terminatedCode)
	}
	if _, err := os.Lstat(left); err == nil {
		t.Errorf("the endpoint %s of the ended process is still there", left)
	}
	if other.ProcessState != nil {
		t.Errorf("a process of another binary was stopped")
	}
	for _, p := range stopped {
		if d := p.describe(); !strings.HasPrefix(d, "webmcp-") || !strings.Contains(d, fmt.Sprint(p.pid)) {
			t.Errorf("describe = %q", d)
		}
	}
}

// TestStopTheBinaries: a real webmcp-host, started as Chrome starts it,
// and a real webmcp-shim serving an agent stop when asked, by themselves
// (exit 0), and the host removes its endpoint. It needs the Windows
// binaries in $WEBMCP_TEST_BIN_DIR (.ci/wine/run builds them).
func TestStopTheBinaries(t *testing.T) {
	src := os.Getenv(bridgetest.BinDirEnv)
	if src == "" {
		t.Skip(bridgetest.BinDirEnv + " is not set")
	}
	dir := bridgetest.TempDir(t)
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"webmcp-host.exe", "webmcp-shim.exe"} {
		copyTo(t, filepath.Join(src, name), filepath.Join(bin, name))
	}
	run := filepath.Join(dir, "run")
	if err := endpoint.EnsureRuntimeDir(run); err != nil {
		t.Fatal(err)
	}
	t.Setenv(endpoint.RuntimeDirEnv, run)
	// The host, once it says it listens (its stop event is made before).
	host := exec.Command(filepath.Join(bin, "webmcp-host.exe"), protocol.ExtensionOrigin, "--parent-window=0")
	hostIn, _ := host.StdinPipe()
	host.Stdout = io.Discard
	hostErr, _ := host.StderrPipe()
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hostIn.Close(); host.Process.Kill(); host.Wait() })
	logs := bufio.NewScanner(hostErr)
	for logs.Scan() && !strings.Contains(logs.Text(), "listening on") {
	}
	go io.Copy(io.Discard, hostErr)
	pipeFile := endpoint.SocketPath(run, host.Process.Pid)
	if _, err := os.Lstat(pipeFile); err != nil {
		t.Fatalf("the host listens, but: %v", err)
	}
	// The shim, once it answers an agent's initialize.
	shim := exec.Command(filepath.Join(bin, "webmcp-shim.exe"))
	shimIn, _ := shim.StdinPipe()
	shimOut, _ := shim.StdoutPipe()
	shim.Stderr = io.Discard
	if err := shim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shimIn.Close(); shim.Process.Kill(); shim.Wait() })
	io.WriteString(shimIn, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`+"\n")
	if line, err := bufio.NewReader(shimOut).ReadString('\n'); !strings.Contains(line, `"id":1`) {
		t.Fatalf("the shim answered initialize with %q (%v)", line, err)
	}
	go io.Copy(io.Discard, shimOut)

	var errs strings.Builder
	stopped := stopProcesses([]string{filepath.Join(bin, "webmcp-host"), filepath.Join(bin, "webmcp-shim")}, &errs)
	if len(stopped) != 2 || errs.Len() > 0 {
		t.Errorf("stopped %v (stderr %q), want the host and the shim", stopped, errs.String())
	}
	if code := exitCode(t, host); code != 0 {
		t.Errorf("webmcp-host exited %d, want 0", code)
	}
	if code := exitCode(t, shim); code != 0 {
		t.Errorf("webmcp-shim exited %d, want 0", code)
	}
	if _, err := os.Lstat(pipeFile); err == nil {
		t.Errorf("the host's endpoint %s is still there", pipeFile)
	}
}
