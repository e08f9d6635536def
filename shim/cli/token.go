package cli

import (
	"context"
	"fmt"

	"github.com/webmcp-bridge/bridge/shim/token"
)

func tokenCommand() *Command {
	return &Command{
		Name:    "token",
		Args:    "[--new] [--path]",
		Summary: "print the bearer token that clients of --http send (made on first use)",
		Run:     runToken,
	}
}

func runToken(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("token")
	renew := fs.Bool("new", false, "")
	showPath := fs.Bool("path", false, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	path, err := token.Path()
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim token: %v\n", err)
		return ExitFail
	}
	if *showPath {
		fmt.Fprintln(env.Stdout, path)
		return ExitOK
	}
	load := token.Load
	if *renew {
		load = token.New
	}
	tok, err := load(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim token: %v\n", err)
		return ExitFail
	}
	fmt.Fprintln(env.Stdout, tok)
	if *renew {
		fmt.Fprintf(env.Stderr, "webmcp-shim token: wrote a new token to %s; clients with the old one are refused from now on (running shims read it at start: restart them)\n", path)
	}
	return ExitOK
}
