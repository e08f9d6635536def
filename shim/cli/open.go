package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/webmcp-bridge/bridge/shim"
)

func openCommand() *Command {
	return &Command{
		Name:    "open",
		Args:    "[--background] [--browser B] [--json] URL",
		Summary: "open an http(s) URL in a new tab (a site not allowed asks you in the browser first) and list the tools it brought",
		Run:     runOpen,
	}
}

func runOpen(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("open")
	background := fs.Bool("background", false, "")
	browser := fs.String("browser", "", "")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, "webmcp-shim: usage: webmcp-shim open [--background] [--browser B] [--json] URL")
		return ExitUsage
	}
	if _, err := shim.CheckPageURL(fs.Arg(0)); err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v\n", err)
		return ExitUsage
	}
	srv, _ := connect(ctx, env)
	defer srv.Close()
	op, err := srv.OpenPage(ctx, fs.Arg(0), *background, *browser)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot open %s: %s\n", fs.Arg(0), requestError(err))
		return ExitFail
	}
	if *asJSON {
		b, _ := json.MarshalIndent(op, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "opened tab %d %q %s\n", op.TabID, op.Title, op.URL)
	if len(op.Tools) > 0 {
		fmt.Fprintf(env.Stdout, "tools: %s\n", strings.Join(op.Tools, ", "))
	} else if op.Note != "" {
		fmt.Fprintln(env.Stdout, op.Note)
	}
	return ExitOK
}
