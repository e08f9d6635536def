package main_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// webmcp-shim demo serves the demo app on loopback, says where, and stops
// cleanly on SIGINT.
func TestDemoServes(t *testing.T) {
	cmd := exec.CommandContext(bridgetest.Context(t), shimBin(t), "demo", "--addr", "127.0.0.1:0")
	cmd.Env = os.Environ()
	cmd.Stderr = bridgetest.NewLog(t, "demo")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bridgetest.GetDemo(t, out)
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("webmcp-shim demo after SIGINT: %v, want exit 0", err)
	}
}

func TestDemoRefusesNonLoopback(t *testing.T) {
	r := runCLI(bridgetest.Context(t), t, bridgetest.RuntimeDir(t), "", "demo", "--addr", "0.0.0.0:8765")
	r.expect(t, "demo on 0.0.0.0", 2)
	if !strings.Contains(r.stderr, "loopback") {
		t.Errorf("stderr = %q, want it to say why", r.stderr)
	}
}

// Without an installation, doctor names the first missing link and how to
// fix it, and fails.
func TestDoctorWithoutInstall(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	shimBin(t) // built before the hang guard starts: a cold build on a busy machine takes longer
	r := runCLI(bridgetest.Context(t), t, bridgetest.RuntimeDir(t)+"/none", "", "doctor")
	r.expect(t, "doctor without an installation", 1)
	for _, want := range []string{"no native-messaging manifest", "./install.sh", "no runtime directory", "problems found"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
}
