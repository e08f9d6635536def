package hostlink

// These tests play a misbehaving or scripted host on a socket
// (bridgetest.Listen), for what the real webmcp-host never does (wrong
// protocol, garbage, dying mid-call); package shim's tests run the real
// host.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// greet reads the shim's hello on p and answers as a host does, with a
// hello and a state.
func greet(t *testing.T, p *bridgetest.LineConn, session string, snap *protocol.Snapshot) {
	t.Helper()
	_, hello := p.Read(bridgetest.Context(t))
	if hello.Type != protocol.TypeHello || hello.Client == nil || hello.Client.Name != "test-shim" || hello.Protocol != protocol.ProtocolVersion {
		t.Fatalf("shim hello = %+v", hello)
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Session: session,
		Host: &protocol.HostInfo{PID: 4242}, Browser: &protocol.Browser{Name: "Chromium"}})
	if snap == nil {
		snap = &protocol.Snapshot{}
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeState, State: snap})
}

func dial(t *testing.T, path string, opts ConnOptions) *Conn {
	t.Helper()
	opts.Client = protocol.ClientInfo{Name: "test-shim"}
	opts.Logger = quiet
	c, err := Dial(bridgetest.Context(t), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func waitReady(t *testing.T, c *Conn) {
	t.Helper()
	select {
	case <-c.Ready():
	case <-c.Done():
		t.Fatalf("connection ended before its state: %v", c.Err())
	case <-bridgetest.Context(t).Done():
		t.Fatal("no state")
	}
}

func TestConnCalls(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	c := dial(t, path, ConnOptions{})
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s7", &protocol.Snapshot{Tabs: []protocol.Tab{{ID: 3, Allowed: true}}, Tools: []protocol.Tool{{TabID: 3, Name: "echo"}}})
	waitReady(t, c)
	if c.Session() != "s7" || c.Host().PID != 4242 || c.Browser().Name != "Chromium" || len(c.Snapshot().Tools) != 1 {
		t.Fatalf("after greeting: session %q, host %+v, browser %+v, state %+v", c.Session(), c.Host(), c.Browser(), c.Snapshot())
	}

	ctx := bridgetest.Context(t)
	type out struct {
		output json.RawMessage
		err    error
	}
	done := make(chan out, 1)
	go func() {
		o, err := c.Call(ctx, 3, 0, "echo", json.RawMessage(`{"a":1}`))
		done <- out{o, err}
	}()
	line, call := p.Read(bridgetest.Context(t))
	if call.Type != protocol.TypeCall || call.ID != "s7.1" || call.TabID != 3 || call.Name != "echo" || string(call.Arguments) != `{"a":1}` {
		t.Fatalf("call = %s", line)
	}
	if !strings.Contains(line, `"frameId":0`) {
		t.Errorf("the call leaves out frameId 0: %s", line)
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeResult, ID: call.ID, Output: json.RawMessage(`{"ok":true}`)})
	if o := <-done; o.err != nil || string(o.output) != `{"ok":true}` {
		t.Fatalf("Call = %s, %v", o.output, o.err)
	}

	go func() {
		o, err := c.Call(ctx, 3, 2, "echo", nil)
		done <- out{o, err}
	}()
	_, call = p.Read(bridgetest.Context(t))
	if call.ID != "s7.2" || call.FrameID != 2 || string(call.Arguments) != `{}` {
		t.Fatalf("second call = %+v", call)
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeError, ID: call.ID, Error: protocol.Errorf(protocol.CodeToolError, "boom")})
	var werr *protocol.Error
	if o := <-done; !errors.As(o.err, &werr) || werr.Code != protocol.CodeToolError || werr.Message != "boom" {
		t.Fatalf("Call = %s, %v; want the tool_error", o.output, o.err)
	}
}

func TestConnCancelAndLateAnswer(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	c := dial(t, path, ConnOptions{})
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s1", nil)
	waitReady(t, c)

	ctx, cancel := context.WithCancel(bridgetest.Context(t))
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, 1, 0, "slow", nil)
		errc <- err
	}()
	_, call := p.Read(bridgetest.Context(t))
	cancel()
	_, m := p.Read(bridgetest.Context(t))
	if m.Type != protocol.TypeCancel || m.ID != call.ID {
		t.Fatalf("after cancelling: %+v, want a cancel of %s", m, call.ID)
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	// The host's answer to the cancelled call arrives late: it is dropped,
	// and the connection goes on.
	p.SendMsg(&protocol.Message{Type: protocol.TypeError, ID: call.ID, Error: protocol.Errorf(protocol.CodeCancelled, "cancelled")})
	go func() {
		_, err := c.Call(bridgetest.Context(t), 1, 0, "fast", nil)
		errc <- err
	}()
	_, call = p.Read(bridgetest.Context(t))
	p.SendMsg(&protocol.Message{Type: protocol.TypeResult, ID: call.ID, Output: json.RawMessage(`1`)})
	if err := <-errc; err != nil {
		t.Fatalf("call after a late answer: %v", err)
	}
}

func TestConnEndAnswersPendingCalls(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	closed := make(chan error, 1)
	c := dial(t, path, ConnOptions{OnClose: func(_ *Conn, err error) { closed <- err }})
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s1", nil)
	waitReady(t, c)

	errc := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.Call(bridgetest.Context(t), 1, 0, "slow", nil)
			errc <- err
		}()
	}
	p.Read(bridgetest.Context(t))
	p.Read(bridgetest.Context(t))
	p.Close() // the host dies
	for range 2 {
		// Sent, then the host died: the page may have run them.
		if err := <-errc; !errors.Is(err, ErrClosed) || errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), "went away") {
			t.Errorf("pending call = %v, want ErrClosed (sent)", err)
		}
	}
	if err := <-closed; !errors.Is(err, ErrClosed) {
		t.Errorf("OnClose got %v", err)
	}
	<-c.Done()
	if _, err := c.Call(bridgetest.Context(t), 1, 0, "late", nil); !errors.Is(err, ErrClosed) || !errors.Is(err, ErrNotSent) {
		t.Errorf("call on an ended connection = %v, want ErrClosed and ErrNotSent", err)
	}
}

func TestConnRefusesOtherProtocol(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	c := dial(t, path, ConnOptions{})
	p := h.Accept(bridgetest.Context(t))
	p.Read(bridgetest.Context(t))
	p.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: 99, Session: "s1"})
	<-c.Done()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "protocol 99") {
		t.Errorf("Err = %v, want a protocol mismatch", err)
	}
}

func TestConnSurvivesGarbage(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	changes := make(chan struct{}, 10)
	c := dial(t, path, ConnOptions{OnChange: func(*Conn) { changes <- struct{}{} }})
	p := h.Accept(bridgetest.Context(t))
	p.Read(bridgetest.Context(t))
	p.Send(`this is not JSON`)
	p.Send(``)
	p.Send(`{"type":"fromTheFuture","x":1}`)
	p.Send(`{"type":"result","id":"nobody.1","output":1}`)
	p.Send(`{"type":"hello","protocol":1,"session":"s1"}`)
	p.Send(`{"type":"state","state":{"tabs":[{"id":1}],"tools":[]}}`)
	waitReady(t, c)
	if len(changes) != 2 {
		t.Errorf("OnChange ran %d times, want 2 (hello, state)", len(changes))
	}
	if got := c.Snapshot().Tabs; len(got) != 1 {
		t.Errorf("tabs = %+v", got)
	}
}

func TestConnRequests(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	c := dial(t, path, ConnOptions{})
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s2", nil)
	waitReady(t, c)

	ctx := bridgetest.Context(t)
	type out struct {
		output json.RawMessage
		err    error
	}
	done := make(chan out, 1)
	go func() {
		o, err := c.Request(ctx, protocol.MethodPin, json.RawMessage(`{"providerId":"a.B"}`))
		done <- out{o, err}
	}()
	line, req := p.Read(bridgetest.Context(t))
	if req.Type != protocol.TypeRequest || req.ID != "s2.1" || req.Method != protocol.MethodPin || string(req.Params) != `{"providerId":"a.B"}` {
		t.Fatalf("request = %s", line)
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeResult, ID: req.ID, Output: json.RawMessage(`{"providerId":"a.B"}`)})
	if o := <-done; o.err != nil || string(o.output) != `{"providerId":"a.B"}` {
		t.Fatalf("Request = %s, %v", o.output, o.err)
	}

	// Requests share the id sequence with calls, default their params to
	// {}, and are cancelled alike.
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		o, err := c.Request(rctx, protocol.MethodSampleContext, nil)
		done <- out{o, err}
	}()
	line, req = p.Read(bridgetest.Context(t))
	if req.ID != "s2.2" || req.Method != protocol.MethodSampleContext || !strings.Contains(line, `"params":{}`) {
		t.Fatalf("second request = %s", line)
	}
	cancel()
	if o := <-done; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("cancelled Request = %s, %v", o.output, o.err)
	}
	if _, m := p.Read(bridgetest.Context(t)); m.Type != protocol.TypeCancel || m.ID != "s2.2" {
		t.Fatalf("after the request's context ended, the shim sent %+v, want a cancel for s2.2", m)
	}
}

// A call's arguments reach the host as the agent wrote them: "<", ">" and
// "&" are not escaped (the shim encodes once, without json.Marshal's second
// pass over the whole text), and the line is compact.
func TestConnCallArgumentsAsWritten(t *testing.T) {
	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	c := dial(t, path, ConnOptions{})
	p := h.Accept(bridgetest.Context(t))
	greet(t, p, "s7", nil)
	waitReady(t, c)
	go c.Call(bridgetest.Context(t), 3, 0, "echo", json.RawMessage("{\"html\": \"<b>a & b</b>\",\n \"n\": [1, 2]}"))
	line, call := p.Read(bridgetest.Context(t))
	if want := `"arguments":{"html":"<b>a & b</b>","n":[1,2]}`; call.Type != protocol.TypeCall || !strings.Contains(line, want) {
		t.Fatalf("call line %s, want it to hold %s", line, want)
	}
}
