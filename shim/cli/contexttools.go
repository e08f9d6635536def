package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/webmcp-bridge/bridge/shim"
)

func contextToolsCommand() *Command {
	return &Command{
		Name:    "context-tools",
		Args:    "[--json] | on NAME | off NAME",
		Summary: "the focused tab's read-only tools you can send with every prompt, and turn them on or off",
		Run:     runContextTools,
	}
}

// contextToolsUsage is the usage line of context-tools.
const contextToolsUsage = "webmcp-shim: usage: webmcp-shim context-tools [--json] (list), or webmcp-shim context-tools on|off NAME"

// runContextTools lists the page tools of the focused tab that can travel
// as UI context with every prompt, or turns one on or off (the person's
// choice, as the panel's "Send NAME with every prompt" switch).
func runContextTools(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("context-tools")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	switch {
	case fs.NArg() == 0:
	case fs.NArg() == 2 && (fs.Arg(0) == "on" || fs.Arg(0) == "off"):
		return setContextTool(ctx, env, fs.Arg(1), fs.Arg(0) == "on")
	default:
		fmt.Fprintln(env.Stderr, contextToolsUsage)
		return ExitUsage
	}
	srv, _ := connect(ctx, env)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	tabID, tools, err := srv.ContextTools(ctx)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot list the tools that can be sent with prompts: %s\n", requestError(err))
		return ExitFail
	}
	if *asJSON {
		if tools == nil {
			tools = []shim.ContextTool{}
		}
		b, _ := json.MarshalIndent(struct {
			TabID int                `json:"tabId"`
			Tools []shim.ContextTool `json:"tools"`
		}{tabID, tools}, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return ExitOK
	}
	if len(tools) == 0 {
		fmt.Fprintf(env.Stdout, "tab %d has no tool that can be sent with prompts (only read-only tools without required arguments can)\n", tabID)
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tWITH EVERY PROMPT\tNOTE")
	for _, t := range tools {
		name := t.Name
		if t.MCPName != "" {
			name = t.MCPName
		}
		var note string
		switch {
		case t.State == "changed":
			note = "the page changed it since it was turned on: turn it on again to send it"
		case t.Offered:
			note = "the page offers it as its context"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, t.State, note)
	}
	tw.Flush()
	return ExitOK
}

func setContextTool(ctx context.Context, env *Env, name string, on bool) int {
	srv, _ := connect(ctx, env)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	state, err := srv.SetContextTool(ctx, name, on)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot turn %s %s: %s\n", name, onOff(on), requestError(err))
		return ExitFail
	}
	if state == "on" {
		fmt.Fprintf(env.Stdout, "%s is sent with every prompt while its tab is the one you look at\n", name)
	} else {
		fmt.Fprintf(env.Stdout, "%s is no longer sent with prompts\n", name)
	}
	return ExitOK
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
