package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

func toolsCommand() *Command {
	return &Command{
		Name:    "tools",
		Args:    "[--json]",
		Summary: "the MCP tools: name(arguments, * required), provenance, one line each",
		Run:     runTools,
	}
}

func runTools(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("tools")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	srv, code := connect(ctx, env)
	defer srv.Close()
	if len(srv.Hosts()) == 0 {
		if *asJSON {
			fmt.Fprintln(env.Stdout, "[]")
		}
		fmt.Fprintln(env.Stderr, results.NoBrowser)
		return code
	}
	tools := srv.Tools()
	if *asJSON {
		if tools == nil {
			tools = []shim.ToolInfo{}
		}
		b, _ := json.MarshalIndent(tools, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return code
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		summary := t.Title
		if summary == "" {
			summary = t.PageDescription
		}
		if summary == "" && t.Bridge {
			summary = t.Description
		}
		fmt.Fprintf(tw, "%s(%s)\t%s\t%s\n", t.Name, textcut.Runes(argsLine(t.InputSchema), 60), t.Provenance, textcut.Line(summary, 60))
	}
	tw.Flush()
	return code
}

// argsLine is a tool's arguments in brief, in the schema's order:
// "name*: string, limit: integer", a * marking a required one; "…" when the
// schema cannot be read so (the whole schema is in tools --json).
func argsLine(schema json.RawMessage) string {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return "…"
	}
	props := bytes.TrimSpace(s.Properties)
	if len(props) == 0 || string(props) == "null" {
		return ""
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	dec := json.NewDecoder(bytes.NewReader(props))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "…"
	}
	var parts []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "…"
		}
		name, _ := tok.(string)
		var prop json.RawMessage
		if dec.Decode(&prop) != nil {
			return "…"
		}
		mark := ""
		if required[name] {
			mark = "*"
		}
		// Names come from the page: one line, no control characters.
		parts = append(parts, textcut.Line(name, 40)+mark+": "+typeText(prop))
	}
	return strings.Join(parts, ", ")
}

// typeText is the type of one property's schema: "string", "integer|null",
// "string[]", "enum" without a type, "any" when it gives none.
func typeText(prop json.RawMessage) string {
	var p struct {
		Type  json.RawMessage `json:"type"`
		Items json.RawMessage `json:"items"`
		Enum  []any           `json:"enum"`
		Const any             `json:"const"`
	}
	if json.Unmarshal(prop, &p) != nil {
		return "any"
	}
	var one string
	var many []string
	switch {
	case json.Unmarshal(p.Type, &one) == nil && one != "":
		if one == "array" && len(p.Items) > 0 {
			if it := typeText(p.Items); it != "any" {
				return it + "[]"
			}
		}
		return textcut.Line(one, 20)
	case json.Unmarshal(p.Type, &many) == nil && len(many) > 0:
		return textcut.Line(strings.Join(many, "|"), 40)
	case p.Enum != nil || p.Const != nil:
		return "enum"
	}
	return "any"
}
