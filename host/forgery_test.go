package host_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// TestForgedEnvelopesRefused: a shim's line whose type or id the
// extension would read otherwise than the host (a case variant of "id"
// beside it, a key given twice) never reaches the browser. Before, b
// could cancel a's call with {"type":"cancel","id":A,"ID":B} while its own
// call B was under way: the host checked B, the browser cancelled A.
func TestForgedEnvelopesRefused(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	b := dialReady(ctx, t, ext.Socket())
	idA := a.call(1, "block", `{}`)
	idB := b.call(1, "block", `{}`)
	awaitCalls(ctx, t, ext, idA, idB)

	forged := []struct{ line, why string }{
		{fmt.Sprintf(`{"type":"cancel","id":%q,"ID":%q}`, idA, idB), `"ID" differs from "id" in case alone`},
		{fmt.Sprintf(`{"type":"cancel","id":%q,"Id":%q}`, idA, idB), `"Id" differs from "id" in case alone`},
		{fmt.Sprintf(`{"type":"cancel","id":%q,"id":%q}`, idA, idB), `"id" is given twice`},
		{fmt.Sprintf(`{"type":"cancel","id":%q,"\u0069d":%q}`, idA, idB), `"id" is given twice`},
		{fmt.Sprintf(`{"type":"call","id":%q,"ID":%q,"tabId":1,"name":"echo","arguments":{}}`, a.session+".2", b.session+".2"), `"ID" differs`},
		{fmt.Sprintf(`{"type":"request","id":%q,"iD":%q,"method":"closeTab","params":{"tabId":1}}`, a.session+".3", b.session+".3"), `"iD" differs`},
		{fmt.Sprintf(`{"type":"call","Type":"cancel","id":%q,"tabId":1,"name":"echo","arguments":{}}`, b.session+".4"), `"Type" differs from "type"`},
		{fmt.Sprintf(`{"type":"cancel","id":"%s.\ud800"}`, b.session), `not valid UTF-16`},
	}
	for _, f := range forged {
		b.Send(f.line)
	}
	// b's own cancel comes after the forged lines: once the browser has
	// it, the host has handled them all.
	b.SendMsg(&protocol.Message{Type: protocol.TypeCancel, ID: idB})
	if e := b.Expect(ctx, protocol.TypeError); e.ID != idB || e.Error.Code != protocol.CodeCancelled {
		t.Fatalf("b got %s, want cancelled for %s", jsonOf(t, e), idB)
	}
	cancel, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeCancel })
	if err != nil {
		t.Fatal(err)
	}
	if cancel.ID != idB {
		t.Errorf("the first cancel that reached the browser is for %s, want b's own %s", cancel.ID, idB)
	}
	if ext.Cancelled(idA) {
		t.Errorf("a's call %s was cancelled by b", idA)
	}
	good := a.call(5, "echo", `{}`)
	m, err := ext.Await(ctx, func(m *protocol.Message) bool {
		return m.Type == protocol.TypeCall || m.Type == protocol.TypeRequest
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != good {
		t.Errorf("the browser got %s %s before a's next call %s", m.Type, m.ID, good)
	}
	a.Expect(ctx, protocol.TypeResult)
	if n := ext.Stats().Unclear; n != 0 {
		t.Errorf("%d messages whose type or id the extension reads otherwise reached the browser", n)
	}
	text := log.text()
	for _, f := range forged {
		if !strings.Contains(text, f.why) {
			t.Errorf("the host's log does not say %q for %s", f.why, f.line)
		}
	}
	// a's call is still a's: a cancels it and gets the answer.
	a.SendMsg(&protocol.Message{Type: protocol.TypeCancel, ID: idA})
	if e := a.Expect(ctx, protocol.TypeError); e.ID != idA || e.Error.Code != protocol.CodeCancelled {
		t.Errorf("a got %s, want cancelled for %s", jsonOf(t, e), idA)
	}
}

// TestShimPIDIsTheSystems: the extension hears of a shim with the pid the
// system recorded for its connection, whatever pid the shim claims (the
// extension keys the tabs a shim opened on it).
func TestShimPIDIsTheSystems(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	me := os.Getpid()
	claim := ext.PID() // the host's own: surely not this process
	s := bridgetest.DialLine(t, ext.Socket())
	s.Expect(ctx, protocol.TypeHello)
	s.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: claim}})
	m, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeSessions && len(m.Sessions) == 1 })
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sessions[0].Client.PID; got != me {
		t.Errorf("the browser was told the shim is process %d, want %d (the system's; it claimed %d)", got, me, claim)
	}
	if _, err := log.await(ctx, fmt.Sprintf("says it is process %d, but the system says %d", claim, me)); err != nil {
		t.Error(err)
	}
	// A later client message cannot change it either.
	s.SendMsg(&protocol.Message{Type: protocol.TypeClient, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: claim, Agents: []protocol.AgentInfo{{ID: "a1", Name: "codex"}}}})
	m, err = ext.Await(ctx, func(m *protocol.Message) bool {
		return m.Type == protocol.TypeSessions && len(m.Sessions) == 1 && len(m.Sessions[0].Client.Agents) == 1
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sessions[0].Client.PID; got != me {
		t.Errorf("after a client message the browser was told process %d, want %d", got, me)
	}
}

// TestNonReaderDelaysNoOne: a shim that never reads, while the browser
// sends thousands of changes, costs another shim nothing: its call is
// answered, and the non-reader is let go once it falls behind.
func TestNonReaderDelaysNoOne(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	idle, err := endpoint.Dial(ctx, ext.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if _, err := idle.Write([]byte(`{"type":"hello","protocol":1,"client":{"name":"never-reads"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	b := dialReady(ctx, t, ext.Socket())
	title := strings.Repeat("a long title ", 40)
	for i := range 3000 {
		if err := ext.UpdateTab(protocol.Tab{ID: 100 + i, URL: fmt.Sprintf("http://localhost:8080/%d", i), Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	id := b.call(1, "echo", `{}`)
	for {
		line, m := b.Read(ctx)
		if m == nil {
			t.Fatalf("b's connection ended before its answer: %s", line)
		}
		if m.Type == protocol.TypeResult && m.ID == id {
			break
		}
	}
	if _, err := log.await(ctx, "disconnected", "fell behind"); err != nil {
		t.Error(err)
	}
}
