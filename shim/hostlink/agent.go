package hostlink

import "context"

type agentKey struct{}

// WithAgent returns a context whose calls and requests ([Conn.Call],
// [Conn.Request]) say they are made for the agent id (a
// [protocol.AgentInfo] ID of the shim's client message), so that the
// extension keeps one agent's doings apart from another's.
func WithAgent(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, agentKey{}, id)
}

// agentFrom returns the agent id of ctx, or "".
func agentFrom(ctx context.Context) string {
	id, _ := ctx.Value(agentKey{}).(string)
	return id
}
