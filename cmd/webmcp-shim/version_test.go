package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/version"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Both binaries print the one version, package internal/version's.
func TestVersionFlags(t *testing.T) {
	for _, bin := range []string{shimBin(t), bridgetest.Binary(t, bridgetest.HostPackage)} {
		out, err := exec.Command(bin, "--version").Output()
		if want := filepath.Base(bin) + " " + version.Version + "\n"; err != nil || string(out) != want {
			t.Errorf("%s --version = %q, %v; want %q", filepath.Base(bin), out, err, want)
		}
	}
}

// copyFile copies an executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// doctor names a webmcp-host beside the shim that is of another release,
// or older than versions, and says to install both again.
func TestDoctorBinariesOfAnotherVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds webmcp-shim")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	dir := bridgetest.RuntimeDir(t)
	doctor := func(shim string) []string {
		cmd := exec.CommandContext(bridgetest.Context(t), shim, "doctor", "--json")
		cmd.Env = bridgetest.ChildEnv(dir)
		out, _ := cmd.Output()
		var d struct {
			Checks []struct{ Link, Status, Message string }
		}
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		var problems []string
		for _, c := range d.Checks {
			if c.Link == "binaries" && c.Status == "problem" {
				problems = append(problems, c.Message)
			}
		}
		return problems
	}

	newer := t.TempDir()
	shim := filepath.Join(newer, "webmcp-shim")
	build := exec.Command("go", "build", "-o", shim, "-ldflags", "-X github.com/webmcp-bridge/bridge/internal/version.Version=0.0.9", bridgetest.ShimPackage)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	copyFile(t, bridgetest.Binary(t, bridgetest.HostPackage), filepath.Join(newer, "webmcp-host"))
	p := doctor(shim)
	if len(p) != 1 || !strings.Contains(p[0], "is version "+version.Version+", this webmcp-shim 0.0.9: install both again") {
		t.Errorf("binaries problems = %q, want the host's version named", p)
	}

	// A host from before --version existed.
	older := t.TempDir()
	shim = filepath.Join(older, "webmcp-shim")
	copyFile(t, shimBin(t), shim)
	os.WriteFile(filepath.Join(older, "webmcp-host"), []byte("#!/bin/sh\n[ \"$1\" = extension-id ] && echo "+protocol.ExtensionID+" && exit 0\nexit 2\n"), 0o755)
	p = doctor(shim)
	if len(p) != 1 || !strings.Contains(p[0], "is older than this webmcp-shim "+version.Version) {
		t.Errorf("binaries problems = %q, want the host named older", p)
	}
}
