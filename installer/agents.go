package installer

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/internal/register"
)

// removeAgents takes out of the agents' own config files (yours, not a
// project's) what `webmcp-shim register CLIENT --write` put there for the
// webmcp-shim in bin: the MCP server entries that start it and the prompt
// hooks that run it, which would otherwise name a binary that is gone.
// Entries that start another binary, and the rest of each file, stay; a
// changed file keeps its previous version as FILE.bak. It says what it
// removed, and returns whether it removed something.
func (u *uninstaller) removeAgents(bin string) bool {
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	shims := []string{filepath.Join(bin, installrec.Exe("webmcp-shim"))}
	// register names the shim with its folder's links resolved.
	if real, err := filepath.EvalSymlinks(bin); err == nil && real != bin {
		shims = append(shims, filepath.Join(real, installrec.Exe("webmcp-shim")))
	}
	removed := false
	for _, shim := range shims {
		env := register.Env{Shim: shim, Home: home, GOOS: runtime.GOOS, XDGConfig: os.Getenv("XDG_CONFIG_HOME"),
			AppData: os.Getenv("APPDATA"), CodexHome: os.Getenv("CODEX_HOME")}
		for _, client := range register.Clients {
			plan, err := register.Removal(client, env)
			if err != nil {
				continue // Claude Desktop, where it has no build
			}
			results, err := plan.Apply()
			for i, res := range results {
				if res.Changed {
					removed = true
					say(u.stdout, "removed %s of %s from %s (the previous version is in %s)", plan.Edits[i].What, plan.Client, target(plan.Edits[i].Path, res), res.Backup)
				}
			}
			if err != nil {
				u.fail("%v", err)
			}
		}
	}
	if removed {
		say(u.stdout, "entries that webmcp-shim register --project wrote into a project's files are left: remove the webmcp server and the hook that runs webmcp-shim context there by hand")
	}
	return removed
}

// target is the file an edit of path went to.
func target(path string, res register.Result) string {
	if res.Target != "" {
		return res.Target
	}
	return path
}
