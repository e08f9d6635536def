package register

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// shim is the shim's path in the tests: with a space, to test quoting.
var shim = map[bool]string{false: "/opt/web mcp/bin/webmcp-shim", true: `C:\Program Files\web mcp\bin\webmcp-shim.exe`}[runtime.GOOS == "windows"]

func testEnv(t *testing.T) Env {
	return Env{Shim: shim, Home: bridgetest.TempDir(t), GOOS: runtime.GOOS}
}

func apply(t *testing.T, p *Plan) []Result {
	t.Helper()
	var out []Result
	for _, e := range p.Edits {
		r, err := e.Apply()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", path, err, b)
	}
	return v
}

// server returns file[section].webmcp.
func server(t *testing.T, path, section string) map[string]any {
	t.Helper()
	v := readJSON(t, path)
	sec, _ := v[section].(map[string]any)
	s, _ := sec[ServerName].(map[string]any)
	if s == nil {
		t.Fatalf("%s has no %s.%s: %v", path, section, ServerName, v)
	}
	return s
}

func TestJSONClients(t *testing.T) {
	for _, tc := range []struct {
		client, file, section string
		env                   func(*Env)
	}{
		{"claude", ".claude.json", "mcpServers", nil},
		{"claude", "proj/.mcp.json", "mcpServers", func(e *Env) { e.Project = filepath.Join(e.Home, "proj") }},
		{"gemini", ".gemini/settings.json", "mcpServers", nil},
		{"cursor", ".cursor/mcp.json", "mcpServers", nil},
		{"vscode", ".config/Code/User/mcp.json", "servers", func(e *Env) { e.GOOS = "linux" }},
		{"vscode", "AppData/Roaming/Code/User/mcp.json", "servers", func(e *Env) { e.GOOS = "windows" }},
		{"vscode", "Roaming/Code/User/mcp.json", "servers", func(e *Env) { e.GOOS = "windows"; e.AppData = filepath.Join(e.Home, "Roaming") }},
		{"vscode", "Library/Application Support/Code/User/mcp.json", "servers", func(e *Env) { e.GOOS = "darwin" }},
	} {
		t.Run(tc.client+" "+tc.file, func(t *testing.T) {
			env := testEnv(t)
			if tc.env != nil {
				tc.env(&env)
			}
			path := filepath.Join(env.Home, tc.file)
			// A file with the user's own entries, which must stay.
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(`{"theme":"dark","`+tc.section+`":{"other":{"command":"other-server"}},"zzz":1}`), 0o600)
			p, err := For(tc.client, env)
			if err != nil {
				t.Fatal(err)
			}
			res := apply(t, p)
			if !res[0].Changed || res[0].Backup != path+".bak" {
				t.Errorf("first apply = %+v", res[0])
			}
			s := server(t, path, tc.section)
			if s["command"] != shim {
				t.Errorf("command = %v", s["command"])
			}
			v := readJSON(t, path)
			if v["theme"] != "dark" || v["zzz"] != 1.0 || v[tc.section].(map[string]any)["other"] == nil {
				t.Errorf("the user's entries are gone: %v", v)
			}
			if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the old 0600", fi.Mode().Perm())
			}
			// The keys keep their order.
			b, _ := os.ReadFile(path)
			if i, j := strings.Index(string(b), `"theme"`), strings.Index(string(b), `"zzz"`); i > j {
				t.Errorf("keys reordered:\n%s", b)
			}
			// Idempotent.
			again := apply(t, p)
			for i, r := range again {
				if r.Changed {
					t.Errorf("second apply changed %s", p.Edits[i].Path)
				}
			}
		})
	}
}

func TestClaudeHook(t *testing.T) {
	env := testEnv(t)
	settings := filepath.Join(env.Home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	// Another hook, and an old one of ours with a bare command.
	os.WriteFile(settings, []byte(`{"hooks":{"UserPromptSubmit":[
		{"hooks":[{"type":"command","command":"my-own-hook"}]},
		{"hooks":[{"type":"command","command":"webmcp-shim context --hook claude"}]}]},"model":"x"}`), 0o644)
	p, err := For("claude", env)
	if err != nil {
		t.Fatal(err)
	}
	wantCmd, wantHook := "claude mcp add --scope user webmcp -- '/opt/web mcp/bin/webmcp-shim'", "'/opt/web mcp/bin/webmcp-shim' context --hook claude"
	if runtime.GOOS == "windows" {
		wantCmd = `claude mcp add --scope user webmcp "--" "C:\Program Files\web mcp\bin\webmcp-shim.exe"`
		wantHook = "'C:/Program Files/web mcp/bin/webmcp-shim.exe' context --hook claude"
	}
	if p.Command != wantCmd {
		t.Errorf("command %q", p.Command)
	}
	apply(t, p)
	apply(t, p)
	var v struct {
		Hooks struct {
			UserPromptSubmit []struct {
				Hooks []struct{ Type, Command string }
			}
		}
		Model string
	}
	b, _ := os.ReadFile(settings)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	ups := v.Hooks.UserPromptSubmit
	if len(ups) != 2 || ups[0].Hooks[0].Command != "my-own-hook" || v.Model != "x" {
		t.Fatalf("hooks = %+v", v)
	}
	if got := ups[1].Hooks[0]; got.Type != "command" || got.Command != wantHook {
		t.Errorf("our hook = %+v", got)
	}
	// The hook's command runs in a shell: the quoted path is one word.
	if sh, err := exec.LookPath("sh"); err == nil {
		out, err := exec.Command(sh, "-c", "printf '%s\\n' "+ups[1].Hooks[0].Command).Output()
		if err != nil || strings.Split(string(out), "\n")[0] != strings.ReplaceAll(shim, `\`, "/") {
			t.Errorf("the shell splits the hook as %q (%v)", out, err)
		}
	}
}

// parseTOML reads the subset of TOML that config.toml files of this test
// hold: tables, and keys with a quoted string or a list of them.
func parseTOML(t *testing.T, s string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{"": {}}
	table := ""
	for n, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			table = strings.Trim(line, "[]")
			if _, dup := out[table]; dup {
				t.Fatalf("line %d: table [%s] twice:\n%s", n+1, table, s)
			}
			out[table] = map[string]any{}
		default:
			k, v, ok := strings.Cut(line, " = ")
			if !ok {
				t.Fatalf("line %d: %q is not key = value", n+1, line)
			}
			if _, dup := out[table][k]; dup {
				t.Fatalf("line %d: key %s twice", n+1, k)
			}
			if v == "[]" {
				out[table][k] = []string{}
			} else if u, err := strconv.Unquote(v); err == nil {
				out[table][k] = u
			} else if v == "true" || v == "false" {
				out[table][k] = v == "true"
			} else {
				t.Fatalf("line %d: value %q", n+1, v)
			}
		}
	}
	return out
}

func TestCodex(t *testing.T) {
	env := testEnv(t)
	env.CodexHome = filepath.Join(env.Home, "codex")
	path := filepath.Join(env.CodexHome, "config.toml")
	os.MkdirAll(env.CodexHome, 0o755)
	old := "model = \"o3\"\n\n[mcp_servers.webmcp]\ncommand = \"webmcp-shim\"\n\n[mcp_servers.other]\ncommand = \"other\"\n"
	os.WriteFile(path, []byte(old), 0o644)
	p, err := For("codex", env)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, p)
	if r := apply(t, p); r[0].Changed {
		t.Error("second apply changed config.toml")
	}
	b, _ := os.ReadFile(path)
	cfg := parseTOML(t, string(b))
	if cfg["mcp_servers.webmcp"]["command"] != shim || cfg["mcp_servers.other"]["command"] != "other" || cfg[""]["model"] != "o3" {
		t.Errorf("config.toml:\n%s", b)
	}
	// A fresh file.
	env.CodexHome = filepath.Join(env.Home, "fresh")
	p, _ = For("codex", env)
	apply(t, p)
	b, _ = os.ReadFile(filepath.Join(env.CodexHome, "config.toml"))
	if cfg := parseTOML(t, string(b)); cfg["mcp_servers.webmcp"]["command"] != shim {
		t.Errorf("fresh config.toml:\n%s", b)
	}
	// A real TOML parser, where this machine has one.
	if py, err := exec.LookPath("python3"); err == nil && exec.Command(py, "-c", "import tomllib").Run() == nil {
		out, err := exec.Command(py, "-c", "import sys,tomllib;print(tomllib.load(open(sys.argv[1],'rb'))['mcp_servers']['webmcp']['command'])", path).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != shim {
			t.Errorf("tomllib: %s %v", out, err)
		}
	}
}

func TestRefusals(t *testing.T) {
	env := testEnv(t)
	if _, err := For("emacs", env); err == nil || !strings.Contains(err.Error(), "claude, codex") {
		t.Errorf("unknown client: %v", err)
	}
	env.Shim = "webmcp-shim"
	if _, err := For("claude", env); err == nil {
		t.Error("a relative shim path was taken")
	}
	// A file that is not plain JSON is left alone, and the error shows
	// the entry to add by hand.
	env = testEnv(t)
	path := filepath.Join(env.Home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("// comment\n{}"), 0o644)
	p, _ := For("cursor", env)
	_, err := p.Edits[0].Apply()
	if quoted, _ := json.Marshal(shim); err == nil || !strings.Contains(err.Error(), `"command": `+string(quoted)) {
		t.Errorf("Apply on JSONC = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "// comment\n{}" {
		t.Errorf("file changed to %q", b)
	}
}
