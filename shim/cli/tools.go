package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

func toolsCommand() *Command {
	return &Command{
		Name:    "tools",
		Args:    "[--json]",
		Summary: "the MCP tools: name and provenance, one line each",
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
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Provenance, textcut.Line(summary, 60))
	}
	tw.Flush()
	return code
}
