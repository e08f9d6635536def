//go:build !windows

// Symbolic links and file modes, as on Unix; the Windows runs of the
// register tests are in register_test.go and register_windows_test.go.

package register

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// applyEach applies the plan's edits one by one and returns the first
// error.
func applyEach(p *Plan) ([]Result, error) {
	var out []Result
	for _, e := range p.Edits {
		r, err := e.Apply()
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func mustPlan(t *testing.T, client string, env Env) *Plan {
	t.Helper()
	p, err := For(client, env)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, path, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// An untrusted project's .mcp.json.bak links to a file of the user's
// (the reported attack: ~/.bashrc replaced by the project's JSON).
func TestBackupLinkOutsideIsNotWrittenThrough(t *testing.T) {
	env := testEnv(t)
	bashrc := filepath.Join(env.Home, ".bashrc")
	write(t, bashrc, "# the user's own\n", 0o644)
	env.Project = filepath.Join(env.Home, "src", "clone")
	mcp := filepath.Join(env.Project, ".mcp.json")
	evil := "{\n\"x\": \"$(touch /tmp/pwned)\"}\n"
	write(t, mcp, evil, 0o644)
	symlink(t, "../../.bashrc", mcp+".bak")

	if _, err := applyEach(mustPlan(t, "claude", env)); err != nil {
		t.Fatal(err)
	}
	if got := content(t, bashrc); got != "# the user's own\n" {
		t.Errorf("~/.bashrc was written through the project's .bak link:\n%s", got)
	}
	if isLink(mcp + ".bak") {
		t.Error(".mcp.json.bak is still a link")
	}
	if got := content(t, mcp+".bak"); got != evil {
		t.Errorf(".mcp.json.bak = %q, want the old .mcp.json", got)
	}
	if isLink(mcp) || server(t, mcp, "mcpServers")["command"] != shim {
		t.Errorf(".mcp.json: link %v, %s", isLink(mcp), content(t, mcp))
	}
}

// FILE.webmcp.tmp linked to a file outside: the temporary file is made
// afresh, never written through a name that was there.
func TestTempLinkIsNotWrittenThrough(t *testing.T) {
	env := testEnv(t)
	victim := filepath.Join(env.Home, "victim")
	write(t, victim, "precious\n", 0o644)
	env.Project = filepath.Join(env.Home, "clone")
	path := filepath.Join(env.Project, ".cursor", "mcp.json")
	write(t, path, "{}\n", 0o644)
	symlink(t, victim, path+".webmcp.tmp")

	if _, err := applyEach(mustPlan(t, "cursor", env)); err != nil {
		t.Fatal(err)
	}
	if got := content(t, victim); got != "precious\n" {
		t.Errorf("the file behind .webmcp.tmp was overwritten:\n%s", got)
	}
	if isLink(path) || server(t, path, "mcpServers")["command"] != shim {
		t.Errorf("mcp.json: link %v, %s", isLink(path), content(t, path))
	}
	// The same in the user's own folder.
	env.Project = ""
	path = filepath.Join(env.Home, ".cursor", "mcp.json")
	write(t, path, "{}\n", 0o644)
	symlink(t, victim, path+".webmcp.tmp")
	if _, err := applyEach(mustPlan(t, "cursor", env)); err != nil {
		t.Fatal(err)
	}
	if got := content(t, victim); got != "precious\n" {
		t.Errorf("user mode: the file behind .webmcp.tmp was overwritten:\n%s", got)
	}
}

// A dotfiles set-up: ~/.claude.json links to the real file, which is
// written (and backed up beside it); the link stays.
func TestUserFileLinkIsFollowed(t *testing.T) {
	env := testEnv(t)
	real := filepath.Join(env.Home, "dotfiles", "claude.json")
	write(t, real, `{"theme":"dark"}`, 0o600)
	link := filepath.Join(env.Home, ".claude.json")
	symlink(t, "dotfiles/claude.json", link)
	// ~/.claude is a linked folder too.
	write(t, filepath.Join(env.Home, "dotfiles", "claude", "settings.json"), `{"model":"x"}`, 0o644)
	symlink(t, "dotfiles/claude", filepath.Join(env.Home, ".claude"))

	p := mustPlan(t, "claude", env)
	res, err := applyEach(p)
	if err != nil {
		t.Fatal(err)
	}
	if !isLink(link) {
		t.Fatal("~/.claude.json is no longer a link")
	}
	if s := server(t, real, "mcpServers"); s["command"] != shim {
		t.Errorf("the real file: %s", content(t, real))
	}
	if v := readJSON(t, real); v["theme"] != "dark" {
		t.Errorf("the real file lost the user's entries: %v", v)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("the real file's mode is %v, want 0600", fi.Mode().Perm())
	}
	if got := content(t, real+".bak"); got != `{"theme":"dark"}` {
		t.Errorf("backup beside the real file = %q", got)
	}
	if res[0].Backup != real+".bak" || res[0].Target != real {
		t.Errorf("Backup, Target = %q, %q; want %q, %q", res[0].Backup, res[0].Target, real+".bak", real)
	}
	settings := filepath.Join(env.Home, "dotfiles", "claude", "settings.json")
	if res[1].Target != settings {
		t.Errorf("the hook's Target = %q, want %q", res[1].Target, settings)
	}
	if !isLink(filepath.Join(env.Home, ".claude")) || !strings.Contains(content(t, filepath.Join(env.Home, "dotfiles", "claude", "settings.json")), "context --hook claude") {
		t.Error("the hook did not go into the linked ~/.claude folder")
	}
}

// In a project (an untrusted clone), a link that leads outside the
// project is refused, whether it is the file or a folder on the way, and
// nothing is written.
func TestProjectLinkOutsideIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client string
		setup  func(t *testing.T, proj, outside string)
		file   string // what the refusal names
	}{
		{"file", "cursor", func(t *testing.T, proj, outside string) {
			symlink(t, filepath.Join(outside, "mcp.json"), filepath.Join(proj, ".cursor", "mcp.json"))
		}, ".cursor/mcp.json"},
		{"relative file", "claude", func(t *testing.T, proj, outside string) {
			symlink(t, "../outside/mcp.json", filepath.Join(proj, ".mcp.json"))
		}, ".mcp.json"},
		{"folder", "claude", func(t *testing.T, proj, outside string) {
			symlink(t, outside, filepath.Join(proj, ".claude"))
		}, ".claude"},
		{"folder via a folder", "vscode", func(t *testing.T, proj, outside string) {
			symlink(t, "sub/up", filepath.Join(proj, ".vscode"))
			symlink(t, "../..", filepath.Join(proj, "sub", "up"))
		}, ".vscode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			env.Project = filepath.Join(env.Home, "proj")
			outside := filepath.Join(env.Home, "outside")
			write(t, filepath.Join(outside, "mcp.json"), `{"mine":1}`, 0o644)
			write(t, filepath.Join(outside, "settings.json"), `{"mine":1}`, 0o644)
			os.MkdirAll(env.Project, 0o755)
			tc.setup(t, env.Project, outside)
			before := tree(t, env.Home)

			_, err := applyEach(mustPlan(t, tc.client, env))
			if err == nil || !strings.Contains(err.Error(), "outside") || !strings.Contains(err.Error(), tc.file) {
				t.Errorf("Apply = %v, want a refusal naming %s and saying it leads outside", err, tc.file)
			}
			if tc.client == "claude" {
				// Plan.Apply refuses before it writes the plan's other file.
				before = tree(t, env.Home)
				if _, err := mustPlan(t, tc.client, env).Apply(); err == nil {
					t.Error("Plan.Apply wrote through the link")
				}
			}
			after := tree(t, env.Home)
			if before != after {
				t.Errorf("files changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			for _, f := range []string{"mcp.json", "settings.json"} {
				if got := content(t, filepath.Join(outside, f)); got != `{"mine":1}` {
					t.Errorf("outside/%s = %s", f, got)
				}
			}
		})
	}
}

// tree lists the files under dir with their content or link target.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(rel + " -> " + target + "\n")
		case d.Type().IsRegular():
			c, _ := os.ReadFile(p)
			b.WriteString(rel + ": " + string(c) + "\n")
		}
		return nil
	})
	return b.String()
}

// A link inside the project that stays inside is followed.
func TestProjectLinkInsideIsFollowed(t *testing.T) {
	env := testEnv(t)
	env.Project = filepath.Join(env.Home, "proj")
	real := filepath.Join(env.Project, "config", "mcp.json")
	write(t, real, `{}`, 0o644)
	symlink(t, "../config/mcp.json", filepath.Join(env.Project, ".cursor", "mcp.json"))
	res, err := applyEach(mustPlan(t, "cursor", env))
	if err != nil {
		t.Fatal(err)
	}
	if !isLink(filepath.Join(env.Project, ".cursor", "mcp.json")) || server(t, real, "mcpServers")["command"] != shim {
		t.Errorf("the link inside the project was not followed: %s", tree(t, env.Project))
	}
	if res[0].Target != real || res[0].Backup != real+".bak" {
		t.Errorf("Target, Backup = %q, %q; want %q and its .bak", res[0].Target, res[0].Backup, real)
	}
}

// The backup has the mode of the file it copies, also when an older
// backup with a looser mode was there.
func TestBackupMode(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".cursor", "mcp.json")
	write(t, path, `{"secret":"s"}`, 0o600)
	write(t, path+".bak", "old backup", 0o644)
	if _, err := applyEach(mustPlan(t, "cursor", env)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path + ".bak")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Errorf("the backup's mode is %v, want -rw------- (the source's)", fi.Mode())
	}
	if got := content(t, path+".bak"); got != `{"secret":"s"}` {
		t.Errorf("backup = %q", got)
	}
	// A mode the umask would narrow is kept as it is.
	path = filepath.Join(env.Home, ".gemini", "settings.json")
	write(t, path, `{}`, 0o664)
	if _, err := applyEach(mustPlan(t, "gemini", env)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".bak"} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o664 {
			t.Errorf("%s: mode %v, want 0664", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

// Files that are not regular files are refused.
func TestNotARegularFile(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Home, ".cursor", "mcp.json")
	os.MkdirAll(path, 0o755)
	_, err := applyEach(mustPlan(t, "cursor", env))
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Apply on a folder = %v", err)
	}
}

func codexEnv(t *testing.T, config string) (Env, string) {
	env := testEnv(t)
	env.CodexHome = filepath.Join(env.Home, "codex")
	path := filepath.Join(env.CodexHome, "config.toml")
	write(t, path, config, 0o644)
	return env, path
}

// tomlCheck parses path with a real TOML parser, where this machine has
// one, and returns mcp_servers.webmcp.command.
func tomlCheck(t *testing.T, path string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import tomllib").Run() != nil {
		return
	}
	out, err := exec.Command(py, "-c", "import sys,tomllib;print(tomllib.load(open(sys.argv[1],'rb'))['mcp_servers']['webmcp']['command'])", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != shim {
		t.Errorf("tomllib: %s %v\n%s", out, err, content(t, path))
	}
}

// A [mcp_servers.webmcp] header written by hand, with spaces, quotes or a
// comment, is the table to update: no second table is appended.
func TestCodexHeaderVariants(t *testing.T) {
	for _, header := range []string{
		"[mcp_servers.webmcp] # added by hand",
		"[ mcp_servers.webmcp ]  # x",
		`[mcp_servers."webmcp"]`,
		`[ mcp_servers . 'webmcp' ]`,
		"\t[mcp_servers.webmcp]\t",
	} {
		t.Run(header, func(t *testing.T) {
			env, path := codexEnv(t, "model = \"o3\"\n\n"+header+"\ncommand = \"old\"\nargs = [\n  [\"nested\"],\n]\n\n[mcp_servers.other]\ncommand = \"other\"\n")
			if _, err := applyEach(mustPlan(t, "codex", env)); err != nil {
				t.Fatal(err)
			}
			got := content(t, path)
			if n := strings.Count(got, "command = "); n != 2 {
				t.Errorf("%d commands, want 2 (ours and other's):\n%s", n, got)
			}
			if !strings.Contains(got, "command = "+tomlString(shim)) || !strings.Contains(got, `command = "other"`) || !strings.Contains(got, `model = "o3"`) {
				t.Errorf("config.toml:\n%s", got)
			}
			tomlCheck(t, path)
		})
	}
	// A header in a multi-line string is not a header.
	env, path := codexEnv(t, "[profiles.x]\nnotes = \"\"\"\n[mcp_servers.webmcp]\ncommand = \"in a string\"\n\"\"\"\n")
	if _, err := applyEach(mustPlan(t, "codex", env)); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); !strings.Contains(got, "command = \"in a string\"\n\"\"\"\n") {
		t.Errorf("the string was edited:\n%s", got)
	}
	tomlCheck(t, path)
}

// mcp_servers.webmcp defined otherwise than by its own table: refused,
// nothing written, and the error says what to do.
func TestCodexUnsureIsRefused(t *testing.T) {
	for _, config := range []string{
		"mcp_servers.webmcp.command = \"x\"\n",
		"model = \"o3\"\nmcp_servers.webmcp = { command = \"x\" }\n",
		"[mcp_servers]\nwebmcp = { command = \"x\" }\n",
		"[mcp_servers]\nwebmcp.command = \"x\"\n",
		"mcp_servers = { webmcp = { command = \"x\" } }\n",
		"[[mcp_servers]]\nname = \"x\"\n",
		"[mcp_servers.webmcp]\ncommand = \"a\"\n[mcp_servers.webmcp]\ncommand = \"b\"\n",
		"[mcp_servers.webmcp\ncommand = \"a\"\n",
		"x = \"unterminated\n[mcp_servers.webmcp]\n",
	} {
		t.Run(strings.SplitN(config, "\n", 2)[0], func(t *testing.T) {
			env, path := codexEnv(t, config)
			_, err := applyEach(mustPlan(t, "codex", env))
			if err == nil || !strings.Contains(err.Error(), "by hand") || !strings.Contains(err.Error(), "[mcp_servers.webmcp]\ncommand = ") {
				t.Errorf("Apply = %v, want a refusal with the table to add by hand", err)
			}
			if got := content(t, path); got != config {
				t.Errorf("config.toml changed:\n%s", got)
			}
			if exists(path + ".bak") {
				t.Error("a backup was made")
			}
		})
	}
}

// After the client rewrote its file (no final newline, other indents,
// keys moved), a re-run finds the entries there: no write, no backup.
func TestRerunAfterReformat(t *testing.T) {
	env := testEnv(t)
	env.CodexHome = filepath.Join(env.Home, "codex")
	for _, client := range []string{"claude", "cursor", "vscode", "codex"} {
		p := mustPlan(t, client, env)
		if _, err := applyEach(p); err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Edits {
			os.Remove(e.Path + ".bak")
			var re []byte
			if strings.HasSuffix(e.Path, ".toml") {
				// As codex mcp add writes it, with a comment.
				re = []byte("[mcp_servers.webmcp]  # ours\ncommand=" + tomlString(shim) + "\nargs = [ ]\nenv = {}")
			} else {
				re = reformatJSON(t, content(t, e.Path))
			}
			write(t, e.Path, string(re), 0o644)
		}
		res, err := applyEach(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range p.Edits {
			if res[i].Changed {
				t.Errorf("%s: re-run changed %s", client, e.Path)
			}
			if exists(e.Path + ".bak") {
				t.Errorf("%s: re-run made %s.bak", client, e.Path)
			}
		}
	}
}

// reformatJSON writes s as a client might: compact, with the keys of
// each object in reverse order, an empty "env" added to server entries,
// and no final newline.
func reformatJSON(t *testing.T, s string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var enc func(v any)
	enc = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["command"].(string); ok && v["args"] != nil {
				v["env"] = map[string]any{}
			}
			keys := slices.Sorted(maps.Keys(v))
			slices.Reverse(keys)
			out.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					out.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				out.Write(kb)
				out.WriteByte(':')
				enc(v[k])
			}
			out.WriteByte('}')
		case []any:
			out.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					out.WriteByte(',')
				}
				enc(e)
			}
			out.WriteByte(']')
		default:
			b, _ := json.Marshal(v)
			out.Write(b)
		}
	}
	enc(v)
	if bytes.Equal(out.Bytes(), []byte(s)) {
		t.Fatalf("reformatJSON changed nothing in %s", s)
	}
	return out.Bytes()
}

// A re-run finds the hook it wrote, whatever the shim's file is called.
func TestHookRerunAnyName(t *testing.T) {
	env := testEnv(t)
	env.Shim = "/usr/local/bin/wshim"
	p := mustPlan(t, "claude", env)
	applyEach(p)
	res, err := applyEach(p)
	if err != nil {
		t.Fatal(err)
	}
	if res[1].Changed {
		t.Error("the re-run changed settings.json")
	}
	if n := strings.Count(content(t, filepath.Join(env.Home, ".claude", "settings.json")), "wshim context"); n != 1 {
		t.Errorf("the hook is there %d times", n)
	}
}

// The table's sub-tables stay, and a file with CRLF line ends keeps them.
func TestCodexKeeps(t *testing.T) {
	env, path := codexEnv(t, "[mcp_servers.webmcp]\r\ncommand = \"old\"\r\n\r\n[mcp_servers.webmcp.env]\r\nFOO = \"1\"\r\n")
	if _, err := applyEach(mustPlan(t, "codex", env)); err != nil {
		t.Fatal(err)
	}
	got := content(t, path)
	if want := "[mcp_servers.webmcp]\r\ncommand = " + tomlString(shim) + "\r\nargs = []\r\n\r\n[mcp_servers.webmcp.env]\r\nFOO = \"1\"\r\n"; got != want {
		t.Errorf("config.toml = %q, want %q", got, want)
	}
	tomlCheck(t, path)
}
