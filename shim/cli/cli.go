// Package cli is webmcp-shim's command line: with no command it serves MCP
// on stdio (what an agent starts); its commands (status, tools, call) give
// scripts and people the same view of the browser's tools that agents get.
// context prints the UI context for a prompt-submit hook (Claude Code's
// UserPromptSubmit with --hook claude), and pin, unpin and pins manage the
// pinned snapshots that the extension keeps.
//
// Commands are entries of commands(); a new one needs an entry there and a
// Run function.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/internal/profiling"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// Exit codes.
const (
	ExitOK    = 0 // done
	ExitFail  = 1 // the command failed: no browser, no such tool, the tool said isError, …
	ExitUsage = 2 // bad flags or arguments
)

// ConnectWait bounds how long one-shot commands wait for each host's state.
const ConnectWait = 2 * time.Second

// Env is what a command runs with: its streams and the global flags.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Timeout bounds each tool call (--timeout).
	Timeout time.Duration
	// MaxResult is the most text of a tool result kept in the agent's
	// context (--max-result); 0 means the default (package spill).
	MaxResult sizeFlag
	// Verbose turns on info and debug logs (--verbose); without it the
	// shim logs only warnings and errors on stderr.
	Verbose bool
}

// Command is one subcommand of webmcp-shim.
type Command struct {
	Name    string // as typed
	Args    string // the arguments, for the usage line
	Summary string // one line for --help
	// Run runs the command with the arguments after its name and returns
	// the exit code.
	Run func(ctx context.Context, env *Env, args []string) int
}

// commands are webmcp-shim's subcommands, in the order --help lists them.
func commands() []*Command {
	return []*Command{statusCommand(), toolsCommand(), callCommand(), contextCommand(), contextToolsCommand(), pinCommand(), unpinCommand(), pinsCommand(), openCommand(), registerCommand(), tokenCommand(), doctorCommand(), cleanCommand(), demoCommand(), uninstallCommand()}
}

func lookup(name string) *Command {
	for _, c := range commands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Main runs webmcp-shim with args (without the program name) and returns
// the exit code. ctx should end on SIGINT/SIGTERM.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Timeout: shim.DefaultTimeout}
	fs := env.flagSet("webmcp-shim")
	var hf httpFlags
	fs.StringVar(&hf.addr, "http", "", "")
	fs.BoolVar(&hf.allowRemote, "allow-remote", false, "")
	fs.Var(&hf.hosts, "allow-host", "")
	fs.Var(&hf.origins, "allow-origin", "")
	showVersion := fs.Bool("version", false, "")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	if *showVersion {
		fmt.Fprintln(stdout, "webmcp-shim", version())
		return ExitOK
	}
	rest := fs.Args()
	httpOnly := hf.allowRemote || len(hf.hosts) > 0 || len(hf.origins) > 0
	switch {
	case len(rest) > 0 && (hf.addr != "" || httpOnly):
		fmt.Fprintf(stderr, "webmcp-shim: --http and its flags go without a command (got %q); see webmcp-shim --help\n", rest[0])
		return ExitUsage
	case hf.addr == "" && httpOnly:
		fmt.Fprintln(stderr, "webmcp-shim: --allow-remote, --allow-host and --allow-origin go with --http ADDR; see webmcp-shim --help")
		return ExitUsage
	case hf.addr != "":
		return serveHTTP(ctx, env, &hf)
	case len(rest) == 0:
		return serve(ctx, env)
	}
	cmd := lookup(rest[0])
	if cmd == nil {
		fmt.Fprintf(stderr, "webmcp-shim: unknown command %q; see webmcp-shim --help\n", rest[0])
		return ExitUsage
	}
	return cmd.Run(ctx, env, rest[1:])
}

// flagSet returns a flag set with the global flags, which every command
// accepts too (so "webmcp-shim call --timeout 5s …" works).
func (env *Env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&env.Timeout, "timeout", env.Timeout, "")
	fs.Var(&env.MaxResult, "max-result", "")
	fs.BoolVar(&env.Verbose, "verbose", env.Verbose, "")
	fs.BoolVar(&env.Verbose, "v", env.Verbose, "")
	return fs
}

// parseNoArgs is parse for a command that takes flags only: it refuses
// arguments with a usage error.
func parseNoArgs(fs *flag.FlagSet, args []string, env *Env) (code int, ok bool) {
	if code, ok := parse(fs, args, env); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "webmcp-shim: %s takes no arguments (got %q)\n", fs.Name(), fs.Args())
		return ExitUsage, false
	}
	return ExitOK, true
}

// parse parses args into fs; ok is false when the caller should return
// code: help was asked for (0) or the flags were wrong (2).
func parse(fs *flag.FlagSet, args []string, env *Env) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(env.Stdout, Usage())
		return ExitOK, false
	case err != nil:
		fmt.Fprintf(env.Stderr, "webmcp-shim: %v; see webmcp-shim --help\n", err)
		return ExitUsage, false
	case env.Timeout < 0:
		fmt.Fprintf(env.Stderr, "webmcp-shim: --timeout must not be negative (0 means no limit)\n")
		return ExitUsage, false
	}
	return ExitOK, true
}

// logger logs to stderr at level, or at debug level with --verbose.
// Commands and the servers pass slog.LevelWarn: info lines ("connected to
// host") are noise where people and agents read stderr.
func (env *Env) logger(level slog.Level) *slog.Logger {
	if env.Verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}

// Usage is the text of --help.
func Usage() string {
	var b strings.Builder
	self, err := selfPath()
	if err != nil {
		self = "webmcp-shim"
	}
	fmt.Fprintf(&b, `webmcp-shim: an MCP server that gives AI agents the tools of the web pages
open in your browser (WebMCP), through the WebMCP bridge extension and its
native host, webmcp-host. It starts with or without a browser, and follows
browsers, tabs and tools as they come and go.

Register it with your agent (every path absolute, so PATH does not matter):

  webmcp-shim register claude|codex|gemini|cursor|vscode|claude-desktop

prints what that agent needs (for Claude Code, Codex and Gemini CLI also
the prompt hook that sends what you are looking at in the browser with each
prompt); --write adds it to the agent's config files, keeping a backup, and
--remove takes it out again. For Claude Code, for instance:

  claude mcp add --scope user webmcp -- `+"%[1]s"+`

Uninstall: webmcp-shim uninstall prints the command for this install
(webmcp-host uninstall --prefix PREFIX, which ./install.sh --uninstall
runs); it also removes what register --write wrote into your agents' files.

Usage:
`, self)
	lines := [][2]string{
		{"webmcp-shim [flags]", "serve MCP on stdin/stdout (what agents start)"},
		{"webmcp-shim --http 127.0.0.1:PORT", "serve MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp (token: see token)"},
	}
	for _, c := range commands() {
		lines = append(lines, [2]string{"webmcp-shim " + strings.TrimSpace(c.Name+" "+c.Args), c.Summary})
	}
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, l[0], l[1])
	}
	fmt.Fprintf(&b, `
Flags:
  --timeout DURATION   bound on each tool call, after which the call is
                       cancelled in the page (default %v; 0: no bound)
  --max-result SIZE    the most text of a tool result that goes into the
                       agent's context (default 256KiB, or $WEBMCP_MAX_RESULT);
                       a bigger result is saved to a private file and the
                       agent gets its path, size and first lines
  -v, --verbose        info and debug logs on stderr (hosts connecting and
                       going, …); without it, only warnings and errors
  --http HOST:PORT     serve MCP over Streamable HTTP instead of stdio, at
                       http://HOST:PORT/mcp; every request needs the header
                       Authorization: Bearer TOKEN (webmcp-shim token);
                       requests from web pages of other sites than
                       localhost (Origin) or with a Host other than
                       localhost, an IP or --allow-host names are refused
  --allow-remote       let --http listen on an address other than loopback
  --allow-host NAME    accept Host: NAME too (repeatable), e.g.
                       host.docker.internal
  --allow-origin URL   accept requests with Origin: URL (repeatable), and
                       answer that page's CORS preflights
  --version            print webmcp-shim's version
  -h, --help           this text

Environment:
  %s   the directory where browsers' hosts put their sockets
                       (on Windows, files that name their pipes; default: $XDG_RUNTIME_DIR/webmcp, else webmcp-bridge/run
                       in your cache directory, %%LOCALAPPDATA%% on Windows;
                       it must be yours alone: mode 0700, not a symlink; on
                       Windows your own, no access entry for others); now: %s
  %s=1   list the page tools marked as debugging tools
                       (WebMCP's annotations.debugging; hidden by default)
  %s=DIR  write a CPU profile of this process's life to
                       DIR/webmcp-shim-PID.pprof (go tool pprof)
`, results.Seconds(shim.DefaultTimeout), endpoint.RuntimeDirEnv, endpoint.RuntimeDir(), shim.DebuggingToolsEnv, profiling.Env)
	return b.String()
}
