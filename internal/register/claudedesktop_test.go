package register

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Claude Desktop's claude_desktop_config.json, where it is on macOS and
// Windows: the server merged in beside the user's own, once.
func TestClaudeDesktop(t *testing.T) {
	for _, tc := range []struct{ goos, file string }{
		{"darwin", "Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", "AppData/Roaming/Claude/claude_desktop_config.json"},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			env := testEnv(t)
			env.GOOS = tc.goos
			path := filepath.Join(env.Home, filepath.FromSlash(tc.file))
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(`{"mcpServers":{"other":{"command":"other-server"}},"globalShortcut":"Cmd+Space"}`), 0o644)
			p, err := For("claude-desktop", env)
			if err != nil {
				t.Fatal(err)
			}
			if p.Command != "" || len(p.Edits) != 1 || p.Edits[0].Path != path {
				t.Fatalf("plan: command %q, edits %+v; want one edit of %s", p.Command, p.Edits, path)
			}
			if res := apply(t, p); !res[0].Changed {
				t.Errorf("first apply changed nothing")
			}
			s := server(t, path, "mcpServers")
			if s["command"] != shim || s["type"] != nil {
				t.Errorf("the entry = %v, want command %s and no type", s, shim)
			}
			v := readJSON(t, path)
			if v["globalShortcut"] != "Cmd+Space" || v["mcpServers"].(map[string]any)["other"] == nil {
				t.Errorf("the user's entries are gone: %v", v)
			}
			if res := apply(t, p); res[0].Changed {
				t.Errorf("second apply changed the file")
			}
		})
	}
}

func TestClaudeDesktopRefused(t *testing.T) {
	env := testEnv(t)
	env.GOOS = "linux" // testEnv has this system's, which may be Windows (under Wine)
	if _, err := For("claude-desktop", env); err == nil || !strings.Contains(err.Error(), "macOS and Windows only") {
		t.Errorf("on Linux: %v", err)
	}
	env.GOOS = "darwin"
	env.Project = filepath.Join(env.Home, "proj")
	if _, err := For("claude-desktop", env); err == nil || !strings.Contains(err.Error(), "no project settings") {
		t.Errorf("with a project: %v", err)
	}
}

// On Windows the file is in %APPDATA%, wherever that is.
func TestClaudeDesktopAppData(t *testing.T) {
	env := testEnv(t)
	env.GOOS, env.AppData = "windows", filepath.Join(env.Home, "Roaming elsewhere")
	p, err := For("claude-desktop", env)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(env.AppData, "Claude", "claude_desktop_config.json"); p.Edits[0].Path != want {
		t.Errorf("path %s, want %s", p.Edits[0].Path, want)
	}
}
