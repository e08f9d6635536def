package cli

// These tests run the command line in the test process (Main), against a
// real webmcp-host with internal/fakeext playing the extension (see
// internal/bridgetest); cmd/webmcp-shim keeps a few smoke tests of the
// binary.

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

func TestMain(m *testing.M) { bridgetest.Main(m) }

// cliRun is one run of the command line.
type cliRun struct {
	stdout, stderr string
	code           int
}

// runCLI runs Main with args, stdin and the runtime directory dir.
func runCLI(ctx context.Context, t *testing.T, dir, stdin string, args ...string) cliRun {
	t.Helper()
	t.Setenv(endpoint.RuntimeDirEnv, dir)
	var stdout, stderr bytes.Buffer
	code := Main(ctx, args, strings.NewReader(stdin), &stdout, &stderr)
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// run runs Main with args and an empty runtime directory of its own.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	r := runCLI(context.Background(), t, t.TempDir(), "", args...)
	return r.code, r.stdout, r.stderr
}

func (r cliRun) expect(t *testing.T, what string, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit code %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
}
