package host_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/host"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Under load (host.HoldUnderLoad or more calls under way in the browser),
// a shim's calls wait for more to join them: calls that a shim wrote one
// by one reach the browser as one batch. With fewer under way, each goes
// at once. The hold is an hour here, so that only a full batch (or no
// hold at all) lets a call go.
func TestCallsUnderLoadGoTogether(t *testing.T) {
	ctx := testCtx(t)
	p, err := runInProcess(t, runtimeDir(t), host.Options{Hold: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p.send(t, &protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Browser: &protocol.Browser{Name: "test", Batch: true}})
	s := dialReady(ctx, t, p.socket)
	isCallOrBatch := func(m *protocol.Message) bool { return m.Type == protocol.TypeCall || m.Type == protocol.TypeBatch }

	n := 0
	for range host.HoldUnderLoad {
		n++
		id := s.call(n, "echo", `{}`)
		if m := p.await(ctx, t, isCallOrBatch); m.Type != protocol.TypeCall || m.ID != id {
			t.Fatalf("with %d calls under way, call %s reached the browser as %s %s, want alone at once", n-1, id, m.Type, m.ID)
		}
	}
	var ids []string
	for range host.HoldMax {
		n++
		ids = append(ids, s.call(n, "echo", `{}`))
	}
	m := p.await(ctx, t, isCallOrBatch)
	if m.Type != protocol.TypeBatch || len(m.Messages) != len(ids) {
		t.Fatalf("%d calls written one by one under load reached the browser as %s %s with %d messages, want one batch of them all", len(ids), m.Type, m.ID, len(m.Messages))
	}
	for i, raw := range m.Messages {
		var c protocol.Message
		if err := json.Unmarshal(raw, &c); err != nil || c.Type != protocol.TypeCall || c.ID != ids[i] {
			t.Errorf("batch message %d: %s (%v), want call %s", i, raw, err, ids[i])
		}
	}
}

// A held call goes when the hold ends, though no other call joins it.
func TestHeldCallGoesAfterTheHold(t *testing.T) {
	ctx := testCtx(t)
	p, err := runInProcess(t, runtimeDir(t), host.Options{Hold: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p.send(t, &protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Browser: &protocol.Browser{Name: "test", Batch: true}})
	s := dialReady(ctx, t, p.socket)
	for i := range host.HoldUnderLoad + 1 {
		id := s.call(i+1, "echo", `{}`)
		p.await(ctx, t, func(m *protocol.Message) bool { return m.Type == protocol.TypeCall && m.ID == id })
	}
	// A cancel behind it keeps its place.
	id := s.call(host.HoldUnderLoad+2, "echo", `{}`)
	s.SendMsg(&protocol.Message{Type: protocol.TypeCancel, ID: id})
	m := p.await(ctx, t, func(m *protocol.Message) bool { return m.Type != protocol.TypeHello && m.Type != protocol.TypeSessions })
	var got []string
	if m.Type == protocol.TypeBatch {
		for _, raw := range m.Messages {
			var c protocol.Message
			json.Unmarshal(raw, &c)
			got = append(got, c.Type+" "+c.ID)
		}
	} else {
		got = append(got, m.Type+" "+m.ID)
		m = p.await(ctx, t, func(m *protocol.Message) bool { return m.Type == protocol.TypeCancel })
		got = append(got, m.Type+" "+m.ID)
	}
	if want := []string{"call " + id, "cancel " + id}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the browser got %q, want %q", got, want)
	}
}
