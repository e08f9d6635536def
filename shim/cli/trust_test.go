package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/intruder"
)

// TestIntruderIsNotTrusted: another local user created the runtime
// directory first and runs a host in it that offers a tool and a context
// of theirs (the attack of issue 7). No command shows or sends anything of
// it; status and doctor say what is wrong and what to do.
func TestIntruderIsNotTrusted(t *testing.T) {
	other := intruder.Need(t)
	dir := other.Dir(t, "run", 0o755)
	evil := other.Serve(t, endpoint.SocketPath(dir, 1))
	t.Setenv(endpoint.RuntimeDirEnv, dir)

	for _, c := range []struct {
		args    []string
		code    int
		stdout  string // wanted in stdout
		stderr  string // wanted in stderr
		quietly bool   // nothing at all on stdout
	}{
		{args: []string{"status"}, code: ExitFail, stderr: "owned by uid"},
		{args: []string{"tools"}, code: ExitFail, stderr: "another local user may be trying to stand in"},
		{args: []string{"call", intruder.Tool, "{}"}, code: ExitFail, stderr: "owned by uid"},
		{args: []string{"context", "--hook", "claude"}, code: ExitOK, quietly: true},
		{args: []string{"context", "--json"}, code: ExitOK},
		{args: []string{"doctor"}, code: ExitFail, stdout: "POSSIBLE ATTACK: the runtime directory " + dir + " is owned by uid"},
	} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), c.args, strings.NewReader(""), &out, &errb)
		all := out.String() + errb.String()
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, code, c.code, all)
		}
		if strings.Contains(all, intruder.Tool) && c.args[0] != "call" || strings.Contains(all, intruder.Context) {
			t.Errorf("%v shows the intruder's tool or context:\n%s", c.args, all)
		}
		if !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%v: stdout %q, stderr %q; want %q and %q in them", c.args, out.String(), errb.String(), c.stdout, c.stderr)
		}
		if c.quietly && out.Len() > 0 {
			t.Errorf("%v printed %q, want nothing", c.args, out.String())
		}
	}
	if b, n := evil.Received(t); n != 0 || b != 0 {
		t.Errorf("%v: %d connections, %d bytes from the commands; want none", evil, n, b)
	}
}
