package cli

import (
	"context"
	"log/slog"
	"strings"
)

// clientGoneNotes are what the SDK's log lines say when a write or read
// failed because the agent closed its end of stdio: a notification that
// was under way as the agent exited (notifications/tools/list_changed,
// say), and the session's end. Nothing went wrong then: the agent went.
var clientGoneNotes = []string{"read/write on closed pipe", "broken pipe", "file already closed", "EOF"}

// clientGoneHandler logs the SDK's lines about an agent that went away at
// debug level (--verbose shows them); every other line as next would.
type clientGoneHandler struct{ next slog.Handler }

func (h clientGoneHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || h.next.Enabled(ctx, slog.LevelDebug)
}

func (h clientGoneHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level > slog.LevelDebug && clientGone(r) {
		debug := slog.NewRecord(r.Time, slog.LevelDebug, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool {
			debug.AddAttrs(a)
			return true
		})
		r = debug
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h clientGoneHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return clientGoneHandler{h.next.WithAttrs(as)}
}

func (h clientGoneHandler) WithGroup(name string) slog.Handler {
	return clientGoneHandler{h.next.WithGroup(name)}
}

// clientGone reports whether r says that the agent's end of stdio closed.
func clientGone(r slog.Record) bool {
	text := r.Message
	r.Attrs(func(a slog.Attr) bool {
		text += " " + a.Value.String()
		return true
	})
	for _, n := range clientGoneNotes {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
}
