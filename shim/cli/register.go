package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/register"
)

func registerCommand() *Command {
	return &Command{
		Name:    "register",
		Args:    "CLIENT [--write | --remove] [--project DIR]",
		Summary: "print what an agent (" + strings.Join(register.Clients, ", ") + ") needs to start this shim and send your context with each prompt; --write adds it, --remove takes it out again",
		Run:     runRegister,
	}
}

func runRegister(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("register")
	write := fs.Bool("write", false, "")
	remove := fs.Bool("remove", false, "")
	project := fs.String("project", "", "")
	shimPath := fs.String("shim", "", "")
	// Flags may come before and after CLIENT.
	var client string
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) > 0 {
		client = rest[0]
		if code, ok := parse(fs, rest[1:], env); !ok {
			return code
		}
		rest = fs.Args()
	}
	if client == "" || len(rest) > 0 {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: name one client: %s (see webmcp-shim --help)\n", strings.Join(register.Clients, ", "))
		return ExitUsage
	}
	if *write && *remove {
		fmt.Fprintln(env.Stderr, "webmcp-shim register: give either --write or --remove")
		return ExitUsage
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
		return ExitFail
	}
	shim := *shimPath
	if shim == "" {
		shim, err = selfPath()
		if err != nil {
			fmt.Fprintf(env.Stderr, "webmcp-shim register: cannot find this binary's path (%v): give it with --shim PATH\n", err)
			return ExitFail
		}
	}
	if shim, err = filepath.Abs(shim); err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
		return ExitFail
	}
	proj := *project
	if proj != "" {
		if proj, err = filepath.Abs(proj); err != nil {
			fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
			return ExitFail
		}
	}
	renv := register.Env{
		Shim: shim, Home: home, GOOS: runtime.GOOS,
		XDGConfig: os.Getenv("XDG_CONFIG_HOME"), AppData: os.Getenv("APPDATA"), CodexHome: os.Getenv("CODEX_HOME"), Project: proj,
	}
	if *remove {
		return runUnregister(env, client, renv)
	}
	plan, err := register.For(client, renv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
		return ExitUsage
	}
	out := env.Stdout
	if !*write {
		fmt.Fprintf(out, "%s: register webmcp-shim (%s)\n\n", plan.Client, shim)
		if plan.Command != "" {
			fmt.Fprintf(out, "Either run\n\n  %s\n\nor add to these files (webmcp-shim register %s --write does it):\n", plan.Command, client)
		} else {
			fmt.Fprintf(out, "Add to these files (webmcp-shim register %s --write does it):\n", client)
		}
		for _, e := range plan.Edits {
			fmt.Fprintf(out, "\n%s, in %s:\n%s", e.What, e.Path, indent(e.Snippet, "  "))
		}
		if slices.Contains(register.HookAgents, client) {
			fmt.Fprintf(out, "\n(the hook is not made by %s mcp add; --write adds it, keeping your other hooks)\n", client)
		}
	} else {
		fmt.Fprintf(out, "%s: registering webmcp-shim (%s)\n", plan.Client, shim)
		results, err := plan.Apply()
		for i, res := range results {
			e := plan.Edits[i]
			path := e.Path
			if res.Target != "" {
				fmt.Fprintf(out, "  %s leads through a link to %s: following it\n", e.Path, res.Target)
				path = res.Target
			}
			switch {
			case !res.Changed:
				fmt.Fprintf(out, "  unchanged %s: %s was already there\n", path, e.What)
			case res.Backup != "":
				fmt.Fprintf(out, "  updated %s: %s; the previous version is in %s\n", path, e.What, res.Backup)
			default:
				fmt.Fprintf(out, "  wrote %s: %s\n", path, e.What)
			}
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
			return ExitFail
		}
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(out, "\n%s", n)
	}
	fmt.Fprintln(out)
	return ExitOK
}

// runUnregister takes out of client's files what register --write put
// there for this shim, and says what it removed.
func runUnregister(env *Env, client string, renv register.Env) int {
	plan, err := register.Removal(client, renv)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "%s: removing webmcp-shim (%s)\n", plan.Client, renv.Shim)
	results, err := plan.Apply()
	for _, line := range register.Describe(plan, results) {
		fmt.Fprintf(env.Stdout, "  %s\n", line)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim register: %v\n", err)
		return ExitFail
	}
	return ExitOK
}

// selfPath is the absolute path of the running binary, symlinks resolved.
func selfPath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// indent prefixes each line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
