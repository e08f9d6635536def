package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

func TestRegisterCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CODEX_HOME", "")
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	shimPath := filepath.Join(home, "bin", "webmcp-shim")

	// Without --write it only prints, with absolute paths.
	r := runCLI(ctx, t, dir, "", "register", "claude", "--shim", shimPath)
	r.expect(t, "register claude", 0)
	for _, want := range []string{"claude mcp add --scope user webmcp -- " + shimPath, shimPath + ` context --hook claude`, filepath.Join(home, ".claude.json")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("register claude lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Error("register without --write wrote a file")
	}

	// The printed paths are absolute even for a relative --shim, and the
	// default is this binary.
	r = runCLI(ctx, t, dir, "", "register", "cursor")
	self, _ := selfPath()
	if !strings.Contains(r.stdout, `"command": "`+self+`"`) {
		t.Errorf("register cursor does not name this binary %s:\n%s", self, r.stdout)
	}

	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		r := runCLI(ctx, t, dir, "", "register", "--write", client, "--shim", shimPath)
		r.expect(t, "register --write "+client, 0)
		if !strings.Contains(r.stdout, "wrote ") {
			t.Errorf("register --write %s:\n%s", client, r.stdout)
		}
		r = runCLI(ctx, t, dir, "", "register", client, "--write", "--shim", shimPath)
		if strings.Contains(r.stdout, "wrote ") || strings.Contains(r.stdout, "updated ") || !strings.Contains(r.stdout, "unchanged ") {
			t.Errorf("second register --write %s changed something:\n%s", client, r.stdout)
		}
	}
	var cfg struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.MCPServers["webmcp"].Command != shimPath {
		t.Errorf("gemini settings %s (%v)", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); !strings.Contains(string(b), `command = "`+shimPath+`"`) {
		t.Errorf("codex config.toml:\n%s", b)
	}

	runCLI(ctx, t, dir, "", "register").expect(t, "register without a client", 2)
	r = runCLI(ctx, t, dir, "", "register", "emacs")
	r.expect(t, "register emacs", 2)
	if !strings.Contains(r.stderr, "claude, codex, gemini, cursor, vscode") {
		t.Errorf("register emacs: %q", r.stderr)
	}
}
