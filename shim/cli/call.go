package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

func callCommand() *Command {
	return &Command{
		Name:    "call",
		Args:    "[--json] NAME [JSON]",
		Summary: "call a tool; JSON is its arguments (default {}, - reads stdin)",
		Run:     runCall,
	}
}

func runCall(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("call")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(env.Stderr, "webmcp-shim: usage: webmcp-shim call [--json] NAME [JSON]; see the tool names with: webmcp-shim tools")
		return ExitUsage
	}
	name := fs.Arg(0)
	argText := "{}"
	if fs.NArg() == 2 {
		argText = fs.Arg(1)
	}
	if argText == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			fmt.Fprintf(env.Stderr, "webmcp-shim: reading the arguments from stdin: %v\n", err)
			return ExitFail
		}
		argText = string(b)
	}
	if !json.Valid([]byte(argText)) {
		fmt.Fprintf(env.Stderr, "webmcp-shim: the arguments are not valid JSON: %s\n", textcut.Line(argText, 80))
		return ExitUsage
	}

	srv, _ := connect(ctx, env)
	defer srv.Close()
	if len(srv.Hosts()) == 0 {
		fmt.Fprintln(env.Stderr, results.NoBrowser)
		return ExitFail
	}
	res, err := srv.CallTool(ctx, name, json.RawMessage(argText))
	if errors.Is(err, shim.ErrNoTool) {
		fmt.Fprintf(env.Stderr, "webmcp-shim: no tool named %q; see the tools with: webmcp-shim tools\n", name)
		return ExitFail
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitFail
	}
	code := ExitOK
	if res.IsError {
		code = ExitFail
	}
	if *asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			fmt.Fprintf(env.Stderr, "webmcp-shim: encoding the result: %v\n", err)
			return ExitFail
		}
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return code
	}
	out := env.Stdout
	if res.IsError {
		out = env.Stderr
	}
	printContent(out, res.Content)
	return code
}

// printContent prints text as it is and other content in brief.
func printContent(w io.Writer, content []mcp.Content) {
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, strings.TrimSuffix(c.Text, "\n"))
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		default:
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "%s\n", b)
		}
	}
}
