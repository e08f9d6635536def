package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/webmcp"
)

// cmd/webmcp-shim's tests run the built binary against a real host; these
// cover argument handling that needs no browser.

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv(webmcp.RuntimeDirEnv, t.TempDir())
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"status", "--help"}} {
		code, out, _ := run(t, args...)
		if code != ExitOK {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, c := range commands() {
			if !strings.Contains(out, "webmcp-shim "+c.Name) {
				t.Errorf("%v: help lacks %s:\n%s", args, c.Name, out)
			}
		}
	}
}

func TestBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"nope"},
		{"--bogus"},
		{"--timeout", "soon"},
		{"status", "extra"},
		{"tools", "--json", "extra"},
		{"call"},
		{"call", "a", "{}", "more"},
		{"call", "a", "{"},
	} {
		code, out, errText := run(t, args...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errText, "webmcp-shim: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a message on stderr", args, code, out, errText)
		}
	}
}

func TestGlobalFlagsAfterTheCommand(t *testing.T) {
	code, _, errText := run(t, "call", "--timeout", "5s", "--json", "echo", "{}")
	if code != ExitFail || !strings.Contains(errText, "no browser connected") {
		t.Errorf("exit %d, stderr %q", code, errText)
	}
}
