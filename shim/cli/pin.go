package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// pinTimeout bounds a pin or unpin request.
const pinTimeout = 10 * time.Second

func pinCommand() *Command {
	return &Command{
		Name:    "pin",
		Args:    "PROVIDER_ID",
		Summary: "pin a snapshot of a context provider of the focused tab",
		Run:     runPin,
	}
}

func unpinCommand() *Command {
	return &Command{
		Name:    "unpin",
		Args:    "[PROVIDER_ID]",
		Summary: "drop the pins of a provider, or all pins",
		Run:     runUnpin,
	}
}

func pinsCommand() *Command {
	return &Command{
		Name:    "pins",
		Args:    "[--json]",
		Summary: "the pinned snapshots",
		Run:     runPins,
	}
}

func runPin(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("pin")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	if fs.NArg() != 1 || strings.TrimSpace(fs.Arg(0)) == "" {
		fmt.Fprintln(env.Stderr, "webmcp-shim: usage: webmcp-shim pin PROVIDER_ID; see the providers of the focused tab with: webmcp-shim context")
		return ExitUsage
	}
	id := fs.Arg(0)
	srv, _ := connect(ctx, env)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	pin, err := srv.Pin(ctx, id)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot pin %s: %s\n", id, requestError(err))
		return ExitFail
	}
	p := uicontext.Build([]uicontext.Host{{State: &protocol.Snapshot{Pins: []protocol.Pin{*pin}}}}, nil).Pinned[0]
	line := fmt.Sprintf("pinned %s (%s)", p.ProviderID, uicontext.PinOrigin(p, time.Now()))
	if p.Summary != "" {
		line += ": " + textcut.Line(p.Summary, 80)
	}
	fmt.Fprintln(env.Stdout, line)
	return ExitOK
}

func runUnpin(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("unpin")
	if code, ok := parse(fs, args, env); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(env.Stderr, "webmcp-shim: usage: webmcp-shim unpin [PROVIDER_ID] (no id: every pin)")
		return ExitUsage
	}
	id := fs.Arg(0)
	srv, _ := connect(ctx, env)
	defer srv.Close()
	before := srv.Pins()
	ctx, cancel := context.WithTimeout(ctx, pinTimeout)
	defer cancel()
	n, err := srv.Unpin(ctx, id)
	switch {
	case err != nil:
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot unpin: %s\n", requestError(err))
		return ExitFail
	case n == 0 && id != "":
		var ids []string
		for _, p := range before {
			ids = append(ids, p.ProviderID)
		}
		pinned := "nothing is pinned"
		if len(ids) > 0 {
			pinned = "pinned: " + strings.Join(ids, ", ")
		}
		fmt.Fprintf(env.Stderr, "webmcp-shim: no pin of %s (%s)\n", id, pinned)
		return ExitFail
	case n == 0:
		fmt.Fprintln(env.Stdout, "nothing was pinned")
	default:
		fmt.Fprintf(env.Stdout, "unpinned %s\n", plural(n, "pin"))
	}
	return ExitOK
}

func runPins(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("pins")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	srv, code := connect(ctx, env)
	defer srv.Close()
	if len(srv.Hosts()) == 0 {
		fmt.Fprintln(env.Stderr, results.NoBrowser)
	}
	pins := srv.Pins()
	if *asJSON {
		b, _ := json.MarshalIndent(pins, "", "  ")
		fmt.Fprintf(env.Stdout, "%s\n", b)
		return code
	}
	if len(pins) == 0 {
		if len(srv.Hosts()) > 0 {
			fmt.Fprintln(env.Stdout, "nothing is pinned; pin a provider of the focused tab with: webmcp-shim pin PROVIDER_ID")
		}
		return code
	}
	now := time.Now()
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tPINNED\tSUMMARY")
	for _, p := range pins {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", textcut.Line(p.ProviderID, 50), textcut.Line(uicontext.PinOrigin(p, now), 60), textcut.Line(p.Summary, 60))
	}
	tw.Flush()
	return code
}

// requestError says what went wrong with a pin or unpin request, and what
// to do.
func requestError(err error) string {
	var werr *protocol.Error
	switch {
	case errors.Is(err, shim.ErrNoBrowser):
		return results.NoBrowser
	case errors.As(err, &werr) && werr.Code == protocol.CodeNoBrowser:
		return results.NoBrowser
	case errors.As(err, &werr):
		return werr.Message
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the browser did not answer within %s; is it hanging?", results.Seconds(pinTimeout))
	}
	return err.Error()
}
