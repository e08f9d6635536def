package register

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Removal is the plan that takes out of client's config files what
// `register --write` put there for the shim at env.Shim: the MCP server
// entry when it starts that shim (one that starts another binary is left
// alone), and the prompt hooks that run it. The user's other entries, and
// files that are not there, stay as they are; a changed file is backed up
// as FILE.bak, as Apply does for a registration.
func Removal(client string, env Env) (*Plan, error) {
	p, err := For(client, env)
	if err != nil {
		return nil, err
	}
	r := &Plan{Client: p.Client}
	for _, e := range p.Edits {
		r.Edits = append(r.Edits, &Edit{Path: e.Path, What: e.What, Snippet: e.Snippet, merge: e.undo, noCreate: true, within: e.within})
	}
	return r, nil
}

// removeServer takes section[ServerName] out of a JSON config file when
// its command is shim, and section too when that leaves it empty.
func removeServer(old []byte, section, shim string) ([]byte, bool, error) {
	root, err := parseObject(old)
	if err != nil {
		return nil, false, fmt.Errorf("not plain JSON (%v)", err)
	}
	if root.get(section) == nil {
		return old, true, nil
	}
	sec, err := root.child(section)
	if err != nil {
		return nil, false, err
	}
	var have struct {
		Command string `json:"command"`
	}
	if v := sec.get(ServerName); v == nil || json.Unmarshal(v, &have) != nil || have.Command != shim {
		return old, true, nil
	}
	sec.del(ServerName)
	if len(sec.keys) == 0 {
		root.del(section)
	} else {
		root.set(section, sec.marshal())
	}
	return root.indent(), false, nil
}

// removeHook takes the entries of event that run shim's `context` out of
// hook settings, and the event's list and the "hooks" object when that
// empties them.
func removeHook(old []byte, event, shim string) ([]byte, bool, error) {
	root, hooks, entries, err := hookList(old, event)
	if err != nil {
		return nil, false, err
	}
	kept := slices.DeleteFunc(slices.Clone(entries), func(e json.RawMessage) bool { return hookOf(e, shim) })
	if len(kept) == len(entries) {
		return old, true, nil
	}
	if len(kept) == 0 {
		hooks.del(event)
	} else {
		hooks.set(event, mustJSON(kept))
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.marshal())
	}
	return root.indent(), false, nil
}

// tomlRemove takes the table key (its header and key/value pairs, and the
// blank line before it) out of doc when its command is shim.
func tomlRemove(doc string, key []string, shim string) (string, bool, error) {
	stmts, err := scanTOML(doc)
	if err != nil {
		return "", false, fmt.Errorf("not TOML that webmcp-shim can edit (%v)", err)
	}
	i := slices.IndexFunc(stmts, func(st tomlStmt) bool { return st.kind == tomlTable && slices.Equal(st.key, key) })
	if i < 0 {
		return doc, true, nil
	}
	from, to, ours := stmts[i].start, stmts[i].end, false
	for _, st := range stmts[i+1:] {
		if st.kind != tomlKeyValue {
			break
		}
		to = st.end
		if v, ok := tomlValue(st.value); ok && len(st.key) == 1 && st.key[0] == "command" && v == shim {
			ours = true
		}
	}
	if !ours {
		return doc, true, nil
	}
	// The blank line that register put before the table.
	head := doc[:from]
	if strings.HasSuffix(head, "\n\n") {
		head = head[:len(head)-1]
	} else if strings.HasSuffix(head, "\r\n\r\n") {
		head = head[:len(head)-2]
	}
	return head + doc[to:], false, nil
}

// Describe says, a line each, what applying the removal plan did: each
// result of plan.Apply with its edit.
func Describe(plan *Plan, results []Result) []string {
	var out []string
	for i, res := range results {
		e := plan.Edits[i]
		path := e.Path
		if res.Target != "" {
			path = res.Target
		}
		switch {
		case !res.Changed:
			out = append(out, fmt.Sprintf("nothing to remove in %s (%s of this shim)", path, e.What))
		default:
			out = append(out, fmt.Sprintf("removed %s from %s; the previous version is in %s", e.What, path, res.Backup))
		}
	}
	return out
}
