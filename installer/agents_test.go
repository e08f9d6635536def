package installer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/internal/register"
)

// The uninstall takes out of the agents' config files what `webmcp-shim
// register CLIENT --write` wrote for the install's shim, and says so; the
// user's own entries, and another install's, stay.
func TestUninstallRemovesAgentEntries(t *testing.T) {
	home := fakeHome(t)
	t.Setenv("CODEX_HOME", "")
	prefix, record := fakeInstall(t)
	shim := filepath.Join(prefix, "bin", installrec.Exe("webmcp-shim"))
	own := `{"mcpServers":{"mine":{"command":"my-server"}},"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"my-hook"}]}],"BeforeAgent":[{"hooks":[{"type":"command","command":"my-hook"}]}]}}`
	var files []string
	for _, client := range []string{"claude", "codex", "gemini", "cursor"} {
		p, err := register.For(client, register.Env{Shim: shim, Home: home, GOOS: runtime.GOOS})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Edits {
			os.MkdirAll(filepath.Dir(e.Path), 0o755)
			if !strings.HasSuffix(e.Path, ".toml") {
				os.WriteFile(e.Path, []byte(own), 0o644)
			}
			files = append(files, e.Path)
		}
		if _, err := p.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	// Another install's shim in VS Code's file.
	other := filepath.Join(t.TempDir(), "webmcp-shim")
	p, _ := register.For("vscode", register.Env{Shim: other, Home: home, GOOS: runtime.GOOS})
	if _, err := p.Apply(); err != nil {
		t.Fatal(err)
	}

	code, stdout, _ := runUninstall(t, record)
	if code != 0 {
		t.Fatalf("uninstall = %d", code)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), shim) || strings.Contains(string(b), "webmcp-shim") {
			t.Errorf("%s still names the shim:\n%s", f, b)
		}
		if !strings.HasSuffix(f, ".toml") && (!strings.Contains(string(b), "my-server") || !strings.Contains(string(b), "my-hook")) {
			t.Errorf("%s lost the user's entries:\n%s", f, b)
		}
		if !strings.Contains(oneLine(stdout), "from "+f+" (the previous version is in "+f+".bak)") {
			t.Errorf("the uninstall does not say what it removed from %s", f)
		}
	}
	if b, _ := os.ReadFile(p.Edits[0].Path); !strings.Contains(string(b), other) {
		t.Errorf("the other install's server is gone from VS Code's file:\n%s", b)
	}
}
