package register

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// TestWindowsPlans: on Windows each agent's config file is where that
// agent reads it (in %USERPROFILE%, VS Code's in %APPDATA%, Codex's in
// %CODEX_HOME%), the .exe path is escaped in JSON and TOML and reads back
// whole, the printed commands are quoted for PowerShell and cmd, and
// Claude Code's hook (run by Git Bash) names the path with forward
// slashes.
func TestWindowsPlans(t *testing.T) {
	for _, c := range []struct {
		shim   string
		quoted string // as the printed commands give it
	}{
		{`C:\Users\ann\AppData\Local\webmcp-bridge\bin\webmcp-shim.exe`, `C:\Users\ann\AppData\Local\webmcp-bridge\bin\webmcp-shim.exe`},
		{`C:\Program Files (x86)\WebMCP Bridge\webmcp-shim.exe`, `"C:\Program Files (x86)\WebMCP Bridge\webmcp-shim.exe"`},
		{`D:\Ann's $tools\100%\webmcp-shim.exe`, `'D:\Ann''s $tools\100%\webmcp-shim.exe'`},
	} {
		home := bridgetest.TempDir(t)
		env := Env{Shim: c.shim, Home: home, GOOS: "windows", AppData: filepath.Join(home, "AppData", "Roaming")}
		files := map[string]string{}
		for _, want := range []struct{ client, command, file, hook string }{
			{"claude", `claude mcp add --scope user webmcp "--" ` + c.quoted, `.claude.json`, `.claude\settings.json`},
			{"codex", `codex mcp add webmcp "--" ` + c.quoted, `.codex\config.toml`, ""},
			{"gemini", `gemini mcp add --scope user webmcp ` + c.quoted, `.gemini\settings.json`, ""},
			{"cursor", "", `.cursor\mcp.json`, ""},
			{"vscode", "", `AppData\Roaming\Code\User\mcp.json`, ""},
		} {
			p, err := For(want.client, env)
			if err != nil {
				t.Fatal(err)
			}
			if p.Command != want.command {
				t.Errorf("%s: command\n%s\nwant\n%s", want.client, p.Command, want.command)
			}
			if got, path := p.Edits[0].Path, filepath.Join(home, want.file); got != path {
				t.Errorf("%s: file %s, want %s", want.client, got, path)
			}
			if want.hook != "" {
				if got, path := p.Edits[1].Path, filepath.Join(home, want.hook); got != path {
					t.Errorf("%s: hook file %s, want %s", want.client, got, path)
				}
			}
			apply(t, p)
			files[want.client] = p.Edits[0].Path
		}
		// JSON: each backslash escaped, the path read back whole.
		escaped := strings.ReplaceAll(c.shim, `\`, `\\`)
		for _, client := range []string{"claude", "gemini", "cursor", "vscode"} {
			b, _ := os.ReadFile(files[client])
			if !strings.Contains(string(b), `"command": "`+escaped+`"`) {
				t.Errorf("%s's file does not hold the escaped path %s:\n%s", client, escaped, b)
			}
			section := map[bool]string{true: "servers", false: "mcpServers"}[client == "vscode"]
			if got := server(t, files[client], section)["command"]; got != c.shim {
				t.Errorf("%s's file reads back %q, want %q", client, got, c.shim)
			}
		}
		// TOML: a basic string, backslashes escaped.
		b, _ := os.ReadFile(files["codex"])
		if !strings.Contains(string(b), "command = \""+escaped+"\"\n") {
			t.Errorf("config.toml does not hold the escaped path:\n%s", b)
		}
		if got := parseTOML(t, string(b))["mcp_servers.webmcp"]["command"]; got != c.shim {
			t.Errorf("config.toml reads back %q, want %q", got, c.shim)
		}
		// Claude Code's hook: forward slashes, one word for Git Bash.
		var settings struct {
			Hooks struct {
				UserPromptSubmit []struct{ Hooks []struct{ Command string } }
			}
		}
		b, _ = os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
		if err := json.Unmarshal(b, &settings); err != nil || len(settings.Hooks.UserPromptSubmit) != 1 {
			t.Fatalf("Claude Code's settings: %v\n%s", err, b)
		}
		slashed := strings.ReplaceAll(c.shim, `\`, "/")
		if got, want := settings.Hooks.UserPromptSubmit[0].Hooks[0].Command, shellQuote(slashed)+" context --hook claude"; got != want {
			t.Errorf("hook %q, want %q", got, want)
		}
	}
	// CODEX_HOME is where Codex reads config.toml.
	codexHome := filepath.Join(bridgetest.TempDir(t), "codex")
	p, _ := For("codex", Env{Shim: `C:\x\webmcp-shim.exe`, Home: bridgetest.TempDir(t), GOOS: "windows", CodexHome: codexHome})
	if got := p.Edits[0].Path; got != filepath.Join(codexHome, "config.toml") {
		t.Errorf("with CODEX_HOME: %s", got)
	}
}
