package register

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookFile is what the hook tests read of a hook settings file.
type hookFile struct {
	Hooks map[string][]hookEntry `json:"hooks"`
	Model string                 `json:"model"`
}

func readHooks(t *testing.T, path string) hookFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v hookFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return v
}

// Codex and Gemini CLI get the prompt hook that Claude Code gets (see
// TestClaudeHook), each in its own file, under its own event, running its
// own --hook format.
func TestPromptHooks(t *testing.T) {
	for _, tc := range []struct {
		agent, file, event string
		env                func(*Env)
	}{
		{"codex", "codex/hooks.json", "UserPromptSubmit", func(e *Env) { e.CodexHome = filepath.Join(e.Home, "codex") }},
		{"codex", ".codex/hooks.json", "UserPromptSubmit", nil},
		{"gemini", ".gemini/settings.json", "BeforeAgent", nil},
		{"gemini", "proj/.gemini/settings.json", "BeforeAgent", func(e *Env) { e.Project = filepath.Join(e.Home, "proj") }},
	} {
		t.Run(tc.agent+" "+tc.file, func(t *testing.T) {
			env := testEnv(t)
			if tc.env != nil {
				tc.env(&env)
			}
			path := filepath.Join(env.Home, tc.file)
			os.MkdirAll(filepath.Dir(path), 0o755)
			// Another hook, and an old one of ours with a bare command.
			os.WriteFile(path, []byte(`{"hooks":{"`+tc.event+`":[
				{"hooks":[{"type":"command","command":"my-own-hook"}]},
				{"hooks":[{"type":"command","command":"webmcp-shim context --hook `+tc.agent+`"}]}]},"model":"x"}`), 0o644)
			p, err := For(tc.agent, env)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			v := readHooks(t, path)
			list := v.Hooks[tc.event]
			want := HookCommand(shim, env.GOOS, tc.agent)
			if len(list) != 2 || list[0].Hooks[0].Command != "my-own-hook" || v.Model != "x" {
				t.Fatalf("hooks = %+v", v)
			}
			if got := list[1].Hooks[0]; got.Type != "command" || got.Command != want || !strings.HasSuffix(want, " context --hook "+tc.agent) {
				t.Errorf("our hook = %+v, want the command %q", got, want)
			}
			res, err := p.Apply()
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Changed {
					t.Errorf("second apply changed %s", p.Edits[i].Path)
				}
			}
		})
	}
}

// register --write, then Removal, leaves each file as the user had it:
// the shim's server entry and hook go, the user's own entries stay; a
// server entry that starts another binary stays too.
func TestRemovalUndoesRegister(t *testing.T) {
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			p, err := For(client, env)
			if err != nil {
				t.Fatal(err)
			}
			// Each file starts with the user's entries: another server,
			// another hook under every event we use, other settings.
			before := map[string]string{}
			for _, e := range p.Edits {
				seed := `{"theme":"dark","mcpServers":{"other":{"command":"o"}},"servers":{"other":{"command":"o"}},` +
					`"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"my-own-hook"}]}],"BeforeAgent":[{"hooks":[{"type":"command","command":"my-own-hook"}]}]}}` + "\n"
				if strings.HasSuffix(e.Path, ".toml") {
					seed = "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\"\n"
				}
				os.MkdirAll(filepath.Dir(e.Path), 0o755)
				if err := os.WriteFile(e.Path, []byte(seed), 0o644); err != nil {
					t.Fatal(err)
				}
				before[e.Path] = seed
			}
			if _, err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			registered := map[string]string{}
			for path := range before {
				b, _ := os.ReadFile(path)
				registered[path] = string(b)
				if !strings.Contains(string(b), "web mcp") {
					t.Fatalf("register wrote nothing of the shim into %s:\n%s", path, b)
				}
			}

			// Another install's shim: nothing of it is there.
			other := env
			other.Shim = filepath.Join(filepath.Dir(shim), "elsewhere", "webmcp-shim")
			r, _ := Removal(client, other)
			res, err := r.Apply()
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range res {
				if x.Changed {
					t.Errorf("removing another shim changed %s", r.Edits[i].Path)
				}
			}

			r, err = Removal(client, env)
			if err != nil {
				t.Fatal(err)
			}
			res, err = r.Apply()
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range res {
				path := r.Edits[i].Path
				b, _ := os.ReadFile(path)
				if !x.Changed || x.Backup != path+".bak" {
					t.Errorf("removal in %s = %+v", path, x)
				}
				if bak, _ := os.ReadFile(path + ".bak"); string(bak) != registered[path] {
					t.Errorf("%s.bak is not the file as register left it", path)
				}
				if strings.HasSuffix(path, ".toml") {
					if string(b) != before[path] {
						t.Errorf("%s after the removal:\n%s\nwant:\n%s", path, b, before[path])
					}
				} else if !sameJSON(b, []byte(before[path])) {
					t.Errorf("%s after the removal:\n%s\nwant:\n%s", path, b, before[path])
				}
			}
			// Again: nothing left to remove.
			res, _ = r.Apply()
			for i, x := range res {
				if x.Changed {
					t.Errorf("second removal changed %s", r.Edits[i].Path)
				}
			}
		})
	}
}

// A removal creates no file.
func TestRemovalWithoutFiles(t *testing.T) {
	env := testEnv(t)
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		r, err := Removal(client, env)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Apply()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range res {
			if _, err := os.Stat(r.Edits[i].Path); x.Changed || err == nil {
				t.Errorf("%s: removal = %+v, file there: %v", r.Edits[i].Path, x, err == nil)
			}
		}
	}
}
