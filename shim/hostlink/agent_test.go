package hostlink

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// TestSetAgents: the agents a shim serves reaches the hosts it is connected
// to in a client message, and hosts it connects to later in its hello.
func TestSetAgents(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	first := bridgetest.Listen(t, endpoint.SocketPath(dir, 1))
	p := NewPool(PoolOptions{Dir: dir, Client: protocol.ClientInfo{Name: "webmcp-shim", PID: 7}})
	t.Cleanup(p.Close)
	if errs := p.Scan(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	h1 := first.Accept(ctx)
	if hello := h1.Expect(ctx, protocol.TypeHello); hello.Client == nil || hello.Client.Agents != nil {
		t.Fatalf("hello %+v, want a client without an agent yet", hello.Client)
	}

	agents := []protocol.AgentInfo{{ID: "a1", Name: "claude-code", Version: "2.1.0"}}
	p.SetAgents(agents)
	want := &protocol.ClientInfo{Name: "webmcp-shim", PID: 7, Agents: agents}
	if m := h1.Expect(ctx, protocol.TypeClient); !cmp.Equal(m.Client, want) {
		t.Errorf("client message %+v, want %+v", m.Client, want)
	}

	second := bridgetest.Listen(t, endpoint.SocketPath(dir, 2))
	if errs := p.Scan(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if hello := second.Accept(ctx).Expect(ctx, protocol.TypeHello); !cmp.Equal(hello.Client, want) {
		t.Errorf("a later host's hello carries %+v, want %+v", hello.Client, want)
	}
}
