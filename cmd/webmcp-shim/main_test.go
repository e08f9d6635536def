// Smoke tests of the webmcp-shim binary: the real webmcp-shim and
// webmcp-host processes, with internal/fakeext playing the browser
// extension, the shim driven by the MCP SDK's client over CommandTransport
// or run as a CLI. They check what only the binary does (stdio, exit codes,
// signals, process start-up); the shim's behaviour is tested in the test
// process by package shim's and package shim/cli's tests.
package main_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

func TestMain(m *testing.M) { bridgetest.Main(m) }

// shimBin is the webmcp-shim binary under test.
func shimBin(t testing.TB) string {
	t.Helper()
	return bridgetest.Binary(t, bridgetest.ShimPackage)
}

// startShim starts webmcp-shim with args and the runtime directory dir, and
// connects an MCP client to it over its stdio.
func startShim(t testing.TB, dir string, args ...string) *bridgetest.MCPClient {
	t.Helper()
	cmd := exec.Command(shimBin(t), args...)
	cmd.Env = bridgetest.ChildEnv(dir)
	cmd.Stderr = bridgetest.NewLog(t, "webmcp-shim")
	return bridgetest.ConnectMCP(t, &mcp.CommandTransport{Command: cmd})
}

// cliRun is one run of the webmcp-shim command line.
type cliRun struct {
	stdout, stderr string
	code           int
}

// runCLI runs webmcp-shim with args and runtime directory dir.
func runCLI(ctx context.Context, t *testing.T, dir, stdin string, args ...string) cliRun {
	t.Helper()
	cmd := exec.CommandContext(ctx, shimBin(t), args...)
	cmd.Env = bridgetest.ChildEnv(dir)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := cliRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("webmcp-shim %v: %v", args, err)
	}
	if strings.Contains(r.stderr, "DATA RACE") {
		t.Errorf("webmcp-shim %v reported a data race:\n%s", args, r.stderr)
	}
	return r
}

func (r cliRun) expect(t *testing.T, what string, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit code %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
}
