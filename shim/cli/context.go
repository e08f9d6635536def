package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/register"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// The context command runs before every prompt (as a prompt-submit hook),
// so its bounds are tight: it waits at most ContextConnectWait for the
// hosts' states and ContextSample for a fresh sample (--wait sets both),
// and gives up entirely after contextDeadline (or three times --wait). A
// host sends its state within milliseconds, and the wait ends then: its
// bound matters only on a busy machine (where 50 ms, the bound before,
// left the prompt without the context it had) or for a hung browser.
const (
	ContextConnectWait = 300 * time.Millisecond
	ContextSample      = 40 * time.Millisecond
	contextDeadline    = time.Second
)

func contextCommand() *Command {
	return &Command{
		Name:    "context",
		Args:    "[--hook claude|codex|gemini] [--json] [--wait D]",
		Summary: "what you look at in the browser, as <ui_context>, for prompt hooks",
		Run:     runContext,
	}
}

// hookOutput is what the prompt hooks of Claude Code and Codex
// (UserPromptSubmit) and Gemini CLI (BeforeAgent) read on stdout.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// runContext prints the UI context block. It never fails the prompt it
// runs for: without a runtime directory, a host or any context it prints
// nothing and exits 0, and problems go to stderr only with --verbose. Bad
// usage exits 1, not 2: the agents block the prompt on a hook's exit 2.
func runContext(ctx context.Context, env *Env, args []string) (code int) {
	// A panic exits 2, which would block the prompt: say nothing instead.
	defer func() {
		if r := recover(); r != nil {
			if env.Verbose {
				fmt.Fprintf(env.Stderr, "webmcp-shim: context: internal error: %v\n", r)
			}
			code = ExitOK
		}
	}()
	fs := env.flagSet("context")
	hook := fs.String("hook", "", "")
	asJSON := fs.Bool("json", false, "")
	wait := fs.Duration("wait", 0, "")
	if code, ok := parse(fs, args, env); !ok {
		return min(code, ExitFail)
	}
	connectWait, sampleWait, deadline := ContextConnectWait, ContextSample, contextDeadline
	switch {
	case *wait < 0:
		fmt.Fprintln(env.Stderr, "webmcp-shim: --wait must not be negative")
		return ExitFail
	case *wait > 0:
		connectWait, sampleWait, deadline = *wait, *wait, max(deadline, 3**wait)
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(env.Stderr, "webmcp-shim: context takes no arguments (got %q)\n", fs.Args())
		return ExitFail
	case *hook != "" && !slices.Contains(register.HookAgents, *hook):
		fmt.Fprintf(env.Stderr, "webmcp-shim: unknown --hook %q: want one of %s (webmcp-shim register AGENT --write installs the hook)\n", *hook, strings.Join(register.HookAgents, ", "))
		return ExitFail
	case *hook != "" && *asJSON:
		fmt.Fprintln(env.Stderr, "webmcp-shim: give either --hook or --json")
		return ExitFail
	}
	logOut := io.Discard
	if env.Verbose {
		logOut = env.Stderr
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// No host socket: nothing to say, and no reason to start anything.
	var v *uicontext.View
	dir := endpoint.RuntimeDir()
	if paths, err := endpoint.HostSockets(dir); err != nil || len(paths) == 0 {
		log.Debug("no host socket; no context", "dir", dir)
		v = uicontext.Build(nil, nil)
	} else {
		ctx, cancel := context.WithTimeout(ctx, deadline)
		defer cancel()
		srv := shim.New(shim.Options{Dir: dir, Logger: log, Version: version()})
		defer srv.Close()
		warnings, errs := srv.Connect(ctx, connectWait)
		for _, e := range append(warnings, errs...) {
			log.Warn("host not used", "err", e)
		}
		v = srv.UIContext(ctx, sampleWait)
		if v.Stale != "" {
			log.Debug("context not fresh", "why", v.Stale)
		}
	}

	if *asJSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			log.Warn("encoding the context", "err", err)
			return ExitOK
		}
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return ExitOK
	}
	text := uicontext.Render(v, time.Now())
	if text == "" {
		log.Debug("no context to print", "note", v.Note)
		return ExitOK
	}
	if *hook == "" {
		fmt.Fprint(env.Stdout, text)
		return ExitOK
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = register.HookEvent(*hook)
	out.HookSpecificOutput.AdditionalContext = text
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false) // keep the tags readable
	if err := enc.Encode(out); err != nil {
		log.Warn("writing the hook output", "err", err)
	}
	return ExitOK
}
