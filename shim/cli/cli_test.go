package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Argument handling that needs no browser.

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
		{"pin"},
		{"pin", "a", "b"},
		{"unpin", "a", "b"},
		{"pins", "extra"},
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

// context runs as a prompt hook: bad usage exits 1, since Claude Code
// blocks the prompt on a hook's exit 2; and without a browser it prints
// nothing.
func TestContextUsageNeverExits2(t *testing.T) {
	for _, args := range [][]string{
		{"context", "extra"},
		{"context", "--hook", "cursor"},
		{"context", "--hook"},
		{"context", "--bogus"},
		{"context", "--hook", "claude", "--json"},
		{"context", "--wait", "-1s"},
	} {
		code, out, errText := run(t, args...)
		if code != ExitFail || out != "" || !strings.HasPrefix(errText, "webmcp-shim: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and a message on stderr", args, code, out, errText)
		}
	}
	for _, args := range [][]string{{"context"}, {"context", "--hook", "claude"}} {
		if code, out, errText := run(t, args...); code != ExitOK || out != "" || errText != "" {
			t.Errorf("%v without a browser: exit %d, stdout %q, stderr %q; want exit 0 and nothing", args, code, out, errText)
		}
	}
	// --json is for scripts: it always prints the payload.
	code, out, errText := run(t, "context", "--json")
	var v struct {
		Note string `json:"note"`
	}
	if code != ExitOK || errText != "" || json.Unmarshal([]byte(out), &v) != nil || !strings.HasPrefix(v.Note, "no browser connected") {
		t.Errorf("context --json without a browser: exit %d, stdout %q, stderr %q", code, out, errText)
	}
}
