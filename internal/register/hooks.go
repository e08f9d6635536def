package register

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The prompt hooks that send what the user looks at in the browser with
// each prompt (click-to-context). Claude Code, Codex and Gemini CLI share
// one shape of hook settings:
//
//	{"hooks": {"EVENT": [{"hooks": [{"type": "command", "command": "…"}]}]}}
//
// with EVENT UserPromptSubmit (Claude Code, Codex) or BeforeAgent (Gemini
// CLI), and each reads the context from the hook's stdout as
// {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": …}},
// which `webmcp-shim context --hook AGENT` prints.

// HookAgents are the agents whose prompt hook can add the context to a
// prompt, and so get one from `register --write`.
var HookAgents = []string{"claude", "codex", "gemini"}

// HookEvent is the hook event of agent (one of [HookAgents]) that runs
// before a prompt goes to the model.
func HookEvent(agent string) string {
	if agent == "gemini" {
		return "BeforeAgent"
	}
	return "UserPromptSubmit"
}

// HookCommand is the prompt hook's command for agent (one of
// [HookAgents]). Claude Code runs hooks through a POSIX shell, on Windows
// through Git Bash, where a backslash is an escape: there the path goes
// with forward slashes, which Git Bash and Windows both take.
func HookCommand(shim, goos, agent string) string {
	q := shellQuote
	if goos == "windows" {
		if agent == "claude" {
			shim = strings.ReplaceAll(shim, `\`, "/")
		} else {
			q = winQuote
		}
	}
	return q(shim) + " context --hook " + agent
}

// hookEntry is one entry of a hook event's list: a group of commands.
type hookEntry struct {
	Hooks []hookCmd `json:"hooks"`
}

type hookCmd struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// promptHook is the edit that adds the hook running command to the list
// of event in the hook settings at path, or updates the entry that runs
// `webmcp-shim context`, keeping the other hooks.
func promptHook(path, event, shim, command string) *Edit {
	ours := mustJSON(hookEntry{Hooks: []hookCmd{{Type: "command", Command: command}}})
	snippet := `{"hooks":{"` + event + `":[` + string(ours) + `]}}` + "\n"
	return &Edit{Path: path, What: "the prompt hook (click-to-context)", Snippet: snippet, merge: func(old []byte) ([]byte, bool, error) {
		root, hooks, entries, err := hookList(old, event)
		if err != nil {
			return nil, false, err
		}
		if slices.ContainsFunc(entries, func(e json.RawMessage) bool { return sameJSON(e, ours) }) {
			return old, true, nil
		}
		if i := slices.IndexFunc(entries, func(e json.RawMessage) bool { return hookOf(e, "") }); i >= 0 {
			entries[i] = ours
		} else {
			entries = append(entries, ours)
		}
		hooks.set(event, mustJSON(entries))
		root.set("hooks", hooks.marshal())
		return root.indent(), false, nil
	}, undo: func(old []byte) ([]byte, bool, error) {
		return removeHook(old, event, shim)
	}}
}

// hookList parses hook settings and returns the file's object, its
// "hooks" object and the list of event.
func hookList(data []byte, event string) (root, hooks *object, entries []json.RawMessage, err error) {
	if root, err = parseObject(data); err != nil {
		return nil, nil, nil, fmt.Errorf("not plain JSON (%v)", err)
	}
	if hooks, err = root.child("hooks"); err != nil {
		return nil, nil, nil, err
	}
	if v := hooks.get(event); v != nil && string(v) != "null" {
		if err := json.Unmarshal(v, &entries); err != nil {
			return nil, nil, nil, fmt.Errorf("hooks.%s is not a list (%v)", event, err)
		}
	}
	return root, hooks, entries, nil
}

// hookOf says whether a hook entry runs `webmcp-shim context`; with shim
// set, only the one of that binary (its path as HookCommand writes it,
// quoted or not).
func hookOf(entry json.RawMessage, shim string) bool {
	var e hookEntry
	if json.Unmarshal(entry, &e) != nil {
		return false
	}
	for _, h := range e.Hooks {
		c := h.Command
		if !strings.Contains(c, "webmcp-shim") || !strings.Contains(c, " context") {
			continue
		}
		if shim == "" || strings.Contains(c, shim) || strings.Contains(c, strings.ReplaceAll(shim, `\`, "/")) {
			return true
		}
	}
	return false
}

// combine is one edit that makes both a's and b's change to their one
// file: two edits of one file would each write over the other's.
func combine(a, b *Edit) *Edit {
	return &Edit{Path: a.Path, What: a.What + " and " + b.What, Snippet: a.Snippet + b.Snippet,
		merge: both(a.merge, b.merge), undo: both(a.undo, b.undo)}
}

// both is f then g, the same when both are.
func both(f, g func([]byte) ([]byte, bool, error)) func([]byte) ([]byte, bool, error) {
	return func(old []byte) ([]byte, bool, error) {
		mid, sameF, err := f(old)
		if err != nil {
			return nil, false, err
		}
		out, sameG, err := g(mid)
		if err != nil {
			return nil, false, err
		}
		if sameF && sameG {
			return old, true, nil
		}
		return out, false, nil
	}
}
