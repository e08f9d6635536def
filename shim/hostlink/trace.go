package hostlink

import (
	"context"

	"github.com/webmcp-bridge/bridge/protocol"
)

// Trace collects the timing marks of one traced call: the shim's own, and
// those that every hop to the page and back added (see [protocol.Mark]).
type Trace struct {
	Marks []protocol.Mark
}

type traceKey struct{}

// WithTrace returns a context whose calls ([Conn.Call]) are traced into t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// traceFrom returns the Trace of ctx, or nil.
func traceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}
