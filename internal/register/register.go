// Package register tells each MCP client (Claude Code, Codex, Gemini CLI,
// Cursor, VS Code, Claude Desktop) how to start webmcp-shim: the command
// to type, or the entry of its own config file, and merges that entry
// into the file when asked, keeping the rest of the file and a backup.
// Every path it writes is absolute, so that nothing depends on the agent's
// PATH. It never writes through a symbolic link it did not resolve on
// purpose, and none that leads out of a project folder (see write.go).
package register

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ServerName is the name the shim is registered under in every client.
const ServerName = "webmcp"

// Clients are the clients Plan knows, in the order help lists them.
var Clients = []string{"claude", "codex", "gemini", "cursor", "vscode", "claude-desktop"}

// Env is what a plan depends on.
type Env struct {
	// Shim is the absolute path of webmcp-shim.
	Shim string
	// Home is the user's home directory.
	Home string
	// GOOS is "linux", "darwin" or "windows"; it picks VS Code's folder
	// and how commands are quoted.
	GOOS string
	// XDGConfig is $XDG_CONFIG_HOME ("" means ~/.config).
	XDGConfig string
	// AppData is %APPDATA% on Windows ("" means Home\AppData\Roaming).
	AppData string
	// CodexHome is $CODEX_HOME ("" means ~/.codex).
	CodexHome string
	// Project is the project folder for project-scoped config files,
	// or "" for the user's own (every project).
	Project string
}

// Plan is how to register the shim with one client.
type Plan struct {
	// Client is the client's display name.
	Client string
	// Command is a shell command that registers the shim through the
	// client's own CLI, if it has one.
	Command string
	// Edits are the config file entries to add or update; `register
	// --write` applies them.
	Edits []*Edit
	// Notes say what else the user must do.
	Notes []string
}

// Edit is one entry merged into one config file.
type Edit struct {
	// Path is the file's absolute path.
	Path string
	// What says what the entry is for, e.g. "the MCP server".
	What string
	// Snippet is the entry as the file has it, to show.
	Snippet string
	// merge returns the file's new content given the old (nil when there
	// is none), and whether the old one holds the entry already.
	merge func(old []byte) (data []byte, same bool, err error)
	// undo is merge's reverse, for [Removal]: it takes the entry out when
	// it is this shim's, and says same when there is none to take out.
	undo func(old []byte) (data []byte, same bool, err error)
	// noCreate is set for a removal: a file that is not there stays so.
	noCreate bool
	// within is the project folder Path is in, for a project's file: no
	// link may lead out of it. "" for the user's own files.
	within string
}

// For returns the plan for client, one of [Clients].
func For(client string, env Env) (*Plan, error) {
	if !filepath.IsAbs(env.Shim) {
		return nil, fmt.Errorf("the shim's path %q is not absolute", env.Shim)
	}
	if env.Home == "" {
		return nil, fmt.Errorf("no home directory: set HOME")
	}
	if env.Project != "" && !filepath.IsAbs(env.Project) {
		return nil, fmt.Errorf("the project's path %q is not absolute", env.Project)
	}
	var p *Plan
	switch client {
	case "claude":
		p = claude(env)
	case "codex":
		p = codex(env)
	case "gemini":
		p = gemini(env)
	case "cursor":
		p = cursor(env)
	case "vscode", "code":
		p = vscode(env)
	case "claude-desktop":
		var err error
		if p, err = claudeDesktop(env); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown client %q: want one of %s", client, strings.Join(Clients, ", "))
	}
	if env.Project != "" {
		for _, e := range p.Edits {
			if rel, err := filepath.Rel(env.Project, e.Path); err == nil && filepath.IsLocal(rel) {
				e.within = filepath.Clean(env.Project)
			}
		}
	}
	return p, nil
}

// cliArgs are the last words of an agent's own `mcp add` command: "--"
// and the shim's path, quoted for the user's shell (see winQuote on
// Windows).
func cliArgs(env Env) string {
	if env.GOOS == "windows" {
		// PowerShell drops a bare -- before a script (agents installed
		// with npm are run through .ps1 files); quoted, it passes.
		return `"--" ` + winQuote(env.Shim)
	}
	return "-- " + shellQuote(env.Shim)
}

// quoteFor quotes s for the shell of env's system.
func quoteFor(env Env, s string) string {
	if env.GOOS == "windows" {
		return winQuote(s)
	}
	return shellQuote(s)
}

func claude(env Env) *Plan {
	p := &Plan{Client: "Claude Code"}
	settings := filepath.Join(env.Home, ".claude", "settings.json")
	if env.Project != "" {
		p.Command = "claude mcp add --scope project " + ServerName + " " + cliArgs(env)
		p.Edits = append(p.Edits, serverEntry(filepath.Join(env.Project, ".mcp.json"), "mcpServers",
			spec{Type: "stdio", Command: env.Shim, Args: []string{}}))
		settings = filepath.Join(env.Project, ".claude", "settings.json")
	} else {
		p.Command = "claude mcp add --scope user " + ServerName + " " + cliArgs(env)
		p.Edits = append(p.Edits, serverEntry(filepath.Join(env.Home, ".claude.json"), "mcpServers",
			spec{Type: "stdio", Command: env.Shim, Args: []string{}}))
	}
	p.Edits = append(p.Edits, promptHook(settings, "UserPromptSubmit", env.Shim, HookCommand(env.Shim, env.GOOS, "claude")))
	p.Notes = append(p.Notes, "Check it with: claude mcp list (webmcp should say Connected).")
	return p
}

func codex(env Env) *Plan {
	home := env.CodexHome
	if home == "" {
		home = filepath.Join(env.Home, ".codex")
	}
	path := filepath.Join(home, "config.toml")
	key := []string{"mcp_servers", ServerName}
	body := "command = " + tomlString(env.Shim) + "\nargs = []\n"
	snippet := "[" + strings.Join(key, ".") + "]\n" + body
	want := map[string]any{"command": env.Shim, "args": []any{}}
	return &Plan{
		Client:  "Codex",
		Command: "codex mcp add " + ServerName + " " + cliArgs(env),
		Edits: []*Edit{{Path: path, What: "the MCP server", Snippet: snippet, merge: func(old []byte) ([]byte, bool, error) {
			out, same, err := tomlMerge(string(old), key, snippet, body, want)
			return []byte(out), same, err
		}, undo: func(old []byte) ([]byte, bool, error) {
			out, same, err := tomlRemove(string(old), key, env.Shim)
			return []byte(out), same, err
		}}, promptHook(filepath.Join(home, "hooks.json"), "UserPromptSubmit", env.Shim, HookCommand(env.Shim, env.GOOS, "codex"))},
		Notes: []string{"Codex runs a new hook only once you trust it: start codex and review it with /hooks (until then your prompts go without the context; the tool get_ui_context still has it).",
			"Check it with: codex mcp list."},
	}
}

func gemini(env Env) *Plan {
	path := filepath.Join(env.Home, ".gemini", "settings.json")
	if env.Project != "" {
		path = filepath.Join(env.Project, ".gemini", "settings.json")
	}
	return &Plan{
		Client:  "Gemini CLI",
		Command: "gemini mcp add --scope user " + ServerName + " " + quoteFor(env, env.Shim),
		Edits: []*Edit{combine(serverEntry(path, "mcpServers", spec{Command: env.Shim, Args: []string{}}),
			promptHook(path, "BeforeAgent", env.Shim, HookCommand(env.Shim, env.GOOS, "gemini")))},
		Notes: []string{"Gemini CLI starts MCP servers only in folders you trust: start gemini in your project and trust the folder when it asks (or /permissions); then /mcp lists webmcp.",
			"Check it with: gemini mcp list."},
	}
}

func cursor(env Env) *Plan {
	path := filepath.Join(env.Home, ".cursor", "mcp.json")
	if env.Project != "" {
		path = filepath.Join(env.Project, ".cursor", "mcp.json")
	}
	return &Plan{
		Client: "Cursor",
		Edits:  []*Edit{serverEntry(path, "mcpServers", spec{Command: env.Shim, Args: []string{}})},
		Notes: []string{"Cursor reads the file when it starts; see Settings → MCP.",
			"Cursor's prompt hook (beforeSubmitPrompt) can only let a prompt through or stop it, not add to it: the agent calls get_ui_context for what you look at."},
	}
}

func vscode(env Env) *Plan {
	var path string
	switch {
	case env.Project != "":
		path = filepath.Join(env.Project, ".vscode", "mcp.json")
	case env.GOOS == "darwin":
		path = filepath.Join(env.Home, "Library", "Application Support", "Code", "User", "mcp.json")
	case env.GOOS == "windows":
		cfg := env.AppData
		if cfg == "" {
			cfg = filepath.Join(env.Home, "AppData", "Roaming")
		}
		path = filepath.Join(cfg, "Code", "User", "mcp.json")
	default:
		cfg := env.XDGConfig
		if cfg == "" {
			cfg = filepath.Join(env.Home, ".config")
		}
		path = filepath.Join(cfg, "Code", "User", "mcp.json")
	}
	return &Plan{
		Client: "VS Code",
		Edits:  []*Edit{serverEntry(path, "servers", spec{Type: "stdio", Command: env.Shim, Args: []string{}})},
		Notes: []string{"VS Code asks you to trust the server the first time; its Chat view (agent mode) lists the tools.",
			"VS Code's prompt hook (UserPromptSubmit) can only let a prompt through or stop it, not add to it: the agent calls get_ui_context for what you look at."},
	}
}

// spec is a client's entry for a stdio MCP server.
type spec struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// serverEntry is the edit that sets file[section][ServerName] = entry.
func serverEntry(path, section string, entry spec) *Edit {
	val := mustJSON(entry)
	snippet := (&object{keys: []string{section}, vals: map[string]json.RawMessage{
		section: (&object{keys: []string{ServerName}, vals: map[string]json.RawMessage{ServerName: val}}).marshal(),
	}}).indent()
	return &Edit{Path: path, What: "the MCP server", Snippet: string(snippet), merge: func(old []byte) ([]byte, bool, error) {
		root, err := parseObject(old)
		if err != nil {
			return nil, false, fmt.Errorf("not plain JSON (%v)", err)
		}
		sec, err := root.child(section)
		if err != nil {
			return nil, false, err
		}
		if have := sec.get(ServerName); have != nil && sameJSON(have, val) {
			return old, true, nil
		}
		sec.set(ServerName, val)
		root.set(section, sec.marshal())
		return root.indent(), false, nil
	}, undo: func(old []byte) ([]byte, bool, error) {
		return removeServer(old, section, entry.Command)
	}}
}

// sameJSON says whether the JSON value have holds what want holds (see
// sameValue).
func sameJSON(have, want json.RawMessage) bool {
	var h, w any
	if json.Unmarshal(have, &h) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	return sameValue(h, w)
}

// sameValue says whether have means what want means to a client: equal
// values, where an object key that one side lacks has an empty value on
// the other ({}, [], "" or null; e.g. the "env": {} that claude mcp add
// writes). Formatting and key order do not count.
func sameValue(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if hv, ok := h[k]; ok && !sameValue(hv, wv) || !ok && !isEmpty(wv) {
				return false
			}
		}
		for k, hv := range h {
			if _, ok := w[k]; !ok && !isEmpty(hv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(h[i], w[i]) {
				return false
			}
		}
		return true
	}
	return have == want
}

// isEmpty says whether v is {}, [], "" or null.
func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// winQuote quotes s for the Windows shells, PowerShell and cmd, when it
// needs it: in double quotes, which both take, unless s holds a character
// that one of them would still expand there ($ and ` in PowerShell, %
// and ! in cmd); then in PowerShell's single quotes (' doubled), which
// take everything literally. A Windows path holds no ".
func winQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`\/._-+=:,@`, r))
	}) < 0 {
		return s
	}
	if !strings.ContainsAny(s, "$`%!\"") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
