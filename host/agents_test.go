package host_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webmcp-bridge/bridge/host"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// TestSessionsToBrowser: the extension hears of every shim that says hello,
// of the agent a shim serves, and of a shim that leaves; each with the pid
// the system recorded for its connection (this process), not the one it
// claims.
func TestSessionsToBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	p, err := runInProcess(t, bridgetest.RuntimeDir(t), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	isSessions := func(m *protocol.Message) bool { return m.Type == protocol.TypeSessions }
	want := func(what string, sessions ...protocol.Session) {
		t.Helper()
		if sessions == nil {
			sessions = []protocol.Session{}
		}
		got := p.await(ctx, t, isSessions).Sessions
		if got == nil {
			got = []protocol.Session{}
		}
		if diff := cmp.Diff(sessions, got); diff != "" {
			t.Fatalf("%s: sessions (-want +got):\n%s", what, diff)
		}
	}

	me := os.Getpid()
	a := bridgetest.DialLine(t, p.socket)
	a.Expect(ctx, protocol.TypeHello)
	a.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: 7}})
	want("after a hello", protocol.Session{ID: "s1", Client: protocol.ClientInfo{Name: "webmcp-shim", PID: me}})

	agents := []protocol.AgentInfo{{ID: "a1", Name: "claude-code", Version: "2.1.0"}, {ID: "a2", Name: "codex", Version: "0.171.0"}}
	a.SendMsg(&protocol.Message{Type: protocol.TypeClient, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: 7, Agents: agents}})
	want("after the agent", protocol.Session{ID: "s1", Client: protocol.ClientInfo{Name: "webmcp-shim", PID: me, Agents: agents}})

	b := bridgetest.DialLine(t, p.socket)
	b.Expect(ctx, protocol.TypeHello)
	b.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: 8}})
	want("a second shim",
		protocol.Session{ID: "s1", Client: protocol.ClientInfo{Name: "webmcp-shim", PID: me, Agents: agents}},
		protocol.Session{ID: "s2", Client: protocol.ClientInfo{Name: "webmcp-shim", PID: me}})

	a.Close()
	want("the first left", protocol.Session{ID: "s2", Client: protocol.ClientInfo{Name: "webmcp-shim", PID: me}})
	b.Close()
	want("both left")
}
