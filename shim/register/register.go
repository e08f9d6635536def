// Package register tells each MCP client (Claude Code, Codex, Gemini CLI,
// Cursor, VS Code) how to start webmcp-shim: the command to type, or the
// entry of its own config file, and merges that entry into the file when
// asked, keeping the rest of the file and a backup. Every path it writes is
// absolute, so that nothing depends on the agent's PATH.
package register

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ServerName is the name the shim is registered under in every client.
const ServerName = "webmcp"

// Clients are the clients Plan knows, in the order help lists them.
var Clients = []string{"claude", "codex", "gemini", "cursor", "vscode"}

// Env is what a plan depends on.
type Env struct {
	// Shim is the absolute path of webmcp-shim.
	Shim string
	// Home is the user's home directory.
	Home string
	// GOOS is "linux" or "darwin"; it picks VS Code's folder.
	GOOS string
	// XDGConfig is $XDG_CONFIG_HOME ("" means ~/.config).
	XDGConfig string
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
	// is none).
	merge func(old []byte) ([]byte, error)
}

// Result is what applying an Edit did.
type Result struct {
	Changed bool   // the file was written
	Backup  string // the previous file's copy, if there was one
}

// Apply merges the entry into the file, creating the file (and its folder)
// if needed. An unchanged file is left alone; a changed one is saved first
// as PATH.bak (the latest previous version), and written with its old mode.
func (e *Edit) Apply() (Result, error) {
	old, err := os.ReadFile(e.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	data, err := e.merge(old)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w; add the entry by hand:\n%s", e.Path, err, e.Snippet)
	}
	if exists && bytes.Equal(old, data) {
		return Result{}, nil
	}
	mode := fs.FileMode(0o644)
	var res Result
	if exists {
		if fi, err := os.Stat(e.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		res.Backup = e.Path + ".bak"
		if err := os.WriteFile(res.Backup, old, mode); err != nil {
			return Result{}, fmt.Errorf("back up %s: %w", e.Path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
		return Result{}, err
	}
	tmp := e.Path + ".webmcp.tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return Result{}, err
	}
	if err := os.Rename(tmp, e.Path); err != nil {
		os.Remove(tmp)
		return Result{}, err
	}
	res.Changed = true
	return res, nil
}

// For returns the plan for client, one of [Clients].
func For(client string, env Env) (*Plan, error) {
	if !filepath.IsAbs(env.Shim) {
		return nil, fmt.Errorf("the shim's path %q is not absolute", env.Shim)
	}
	if env.Home == "" {
		return nil, fmt.Errorf("no home directory: set HOME")
	}
	switch client {
	case "claude":
		return claude(env), nil
	case "codex":
		return codex(env), nil
	case "gemini":
		return gemini(env), nil
	case "cursor":
		return cursor(env), nil
	case "vscode", "code":
		return vscode(env), nil
	}
	return nil, fmt.Errorf("unknown client %q: want one of %s", client, strings.Join(Clients, ", "))
}

// HookCommand is the prompt hook's command for Claude Code.
func HookCommand(shim string) string {
	return shellQuote(shim) + " context --hook claude"
}

func claude(env Env) *Plan {
	p := &Plan{Client: "Claude Code"}
	settings := filepath.Join(env.Home, ".claude", "settings.json")
	if env.Project != "" {
		p.Command = "claude mcp add --scope project " + ServerName + " -- " + shellQuote(env.Shim)
		p.Edits = append(p.Edits, serverEntry(filepath.Join(env.Project, ".mcp.json"), "mcpServers",
			spec{Type: "stdio", Command: env.Shim, Args: []string{}}))
		settings = filepath.Join(env.Project, ".claude", "settings.json")
	} else {
		p.Command = "claude mcp add --scope user " + ServerName + " -- " + shellQuote(env.Shim)
		p.Edits = append(p.Edits, serverEntry(filepath.Join(env.Home, ".claude.json"), "mcpServers",
			spec{Type: "stdio", Command: env.Shim, Args: []string{}}))
	}
	p.Edits = append(p.Edits, claudeHook(settings, HookCommand(env.Shim)))
	p.Notes = append(p.Notes, "Check it with: claude mcp list (webmcp should say Connected).")
	return p
}

func codex(env Env) *Plan {
	home := env.CodexHome
	if home == "" {
		home = filepath.Join(env.Home, ".codex")
	}
	path := filepath.Join(home, "config.toml")
	table := "[mcp_servers." + ServerName + "]"
	snippet := table + "\ncommand = " + tomlString(env.Shim) + "\nargs = []\n"
	return &Plan{
		Client:  "Codex",
		Command: "codex mcp add " + ServerName + " -- " + shellQuote(env.Shim),
		Edits: []*Edit{{Path: path, What: "the MCP server", Snippet: snippet, merge: func(old []byte) ([]byte, error) {
			return mergeTOMLTable(old, table, snippet), nil
		}}},
		Notes: []string{"Check it with: codex mcp list."},
	}
}

func gemini(env Env) *Plan {
	path := filepath.Join(env.Home, ".gemini", "settings.json")
	if env.Project != "" {
		path = filepath.Join(env.Project, ".gemini", "settings.json")
	}
	return &Plan{
		Client:  "Gemini CLI",
		Command: "gemini mcp add --scope user " + ServerName + " " + shellQuote(env.Shim),
		Edits:   []*Edit{serverEntry(path, "mcpServers", spec{Command: env.Shim, Args: []string{}})},
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
		Notes:  []string{"Cursor reads the file when it starts; see Settings → MCP."},
	}
}

func vscode(env Env) *Plan {
	var path string
	switch {
	case env.Project != "":
		path = filepath.Join(env.Project, ".vscode", "mcp.json")
	case env.GOOS == "darwin":
		path = filepath.Join(env.Home, "Library", "Application Support", "Code", "User", "mcp.json")
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
		Notes:  []string{"VS Code asks you to trust the server the first time; its Chat view (agent mode) lists the tools."},
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
	return &Edit{Path: path, What: "the MCP server", Snippet: string(snippet), merge: func(old []byte) ([]byte, error) {
		root, err := parseObject(old)
		if err != nil {
			return nil, fmt.Errorf("not plain JSON (%v)", err)
		}
		sec, err := root.child(section)
		if err != nil {
			return nil, err
		}
		sec.set(ServerName, val)
		root.set(section, sec.marshal())
		return root.indent(), nil
	}}
}

// claudeHook is the edit that adds the UserPromptSubmit hook running
// command to Claude Code's settings at path, or updates the one that runs
// `webmcp-shim context`.
func claudeHook(path, command string) *Edit {
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	ours := mustJSON(map[string][]hook{"hooks": {{Type: "command", Command: command}}})
	snippet := `{"hooks":{"UserPromptSubmit":[` + string(ours) + `]}}` + "\n"
	return &Edit{Path: path, What: "the prompt hook (click-to-context)", Snippet: snippet, merge: func(old []byte) ([]byte, error) {
		root, err := parseObject(old)
		if err != nil {
			return nil, fmt.Errorf("not plain JSON (%v)", err)
		}
		hooks, err := root.child("hooks")
		if err != nil {
			return nil, err
		}
		var entries []json.RawMessage
		if v := hooks.get("UserPromptSubmit"); v != nil && string(v) != "null" {
			if err := json.Unmarshal(v, &entries); err != nil {
				return nil, fmt.Errorf("hooks.UserPromptSubmit is not a list (%v)", err)
			}
		}
		i := slices.IndexFunc(entries, isOurHook)
		if i >= 0 {
			entries[i] = ours
		} else {
			entries = append(entries, ours)
		}
		hooks.set("UserPromptSubmit", mustJSON(entries))
		root.set("hooks", hooks.marshal())
		return root.indent(), nil
	}}
}

// isOurHook says whether a UserPromptSubmit entry runs webmcp-shim context.
func isOurHook(entry json.RawMessage) bool {
	var e struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(entry, &e) != nil {
		return false
	}
	for _, h := range e.Hooks {
		if strings.Contains(h.Command, "webmcp-shim") && strings.Contains(h.Command, " context") {
			return true
		}
	}
	return false
}

// mergeTOMLTable replaces the TOML table headed by header (up to the next
// table header) with table, or appends table when there is none.
func mergeTOMLTable(old []byte, header, table string) []byte {
	lines := strings.SplitAfter(string(old), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 && t == header {
			start = i
			continue
		}
		if start >= 0 && strings.HasPrefix(t, "[") {
			end = i
			break
		}
	}
	if start < 0 {
		s := string(old)
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if s != "" {
			s += "\n"
		}
		return []byte(s + table)
	}
	// Keep the blank lines that separated the table from the next one.
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	var b strings.Builder
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	b.WriteString(table)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return []byte(b.String())
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

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
