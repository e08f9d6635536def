package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

func TestWrongOriginRefused(t *testing.T) {
	for _, origin := range []string{"chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/", "https://example.com", protocol.ExtensionOrigin + "x"} {
		t.Run(origin, func(t *testing.T) {
			log := newLogbook(t)
			dir := runtimeDir(t)
			_, err := fakeext.Start(testCtx(t), fakeext.Options{HostBinary: hostBinary(t), RuntimeDir: dir, Origin: origin, Stderr: log})
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("Start = %v, want the host to exit with a non-zero status", err)
			}
			if !strings.Contains(log.text(), "refusing") || !strings.Contains(log.text(), origin) {
				t.Errorf("stderr does not say that %q was refused:\n%s", origin, log.text())
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the host created its runtime directory for a refused origin (stat: %v)", err)
			}
		})
	}
}

func TestNoOriginRefused(t *testing.T) {
	cmd := exec.Command(hostBinary(t))
	cmd.Env = append(os.Environ(), goraceEnv)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("webmcp-host without arguments: %v, want a non-zero exit", err)
	}
	if !strings.Contains(string(out), "not meant to be run by hand") {
		t.Errorf("output does not explain the refusal: %s", out)
	}
}

func TestHelp(t *testing.T) {
	cmd := exec.Command(hostBinary(t), "--help")
	cmd.Env = append(os.Environ(), goraceEnv)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"native-messaging host", "browser starts it", endpoint.RuntimeDirEnv} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("--help does not mention %q:\n%s", want, out)
		}
	}
}

func TestSocketAndDirModes(t *testing.T) {
	bridgetest.UnixOnly(t, "file modes of the runtime directory and socket")
	// Chrome on Windows passes --parent-window=N; it must not matter.
	ext, _ := start(t, nil, fakeext.Options{Args: []string{"--parent-window=0"}})
	dir := filepath.Dir(ext.Socket())
	if want := endpoint.SocketPath(dir, ext.PID()); ext.Socket() != want {
		t.Errorf("socket %s, want %s", ext.Socket(), want)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime directory mode %v, want 0700", fi.Mode().Perm())
	}
	fi, err = os.Stat(ext.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with mode 0600", fi.Mode())
	}
}

func TestNewShimGetsHelloAndLatestState(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := startSilent(t, nil, fakeext.Options{})

	// A shim that is there before the browser said anything gets an
	// empty state.
	a := dial(ctx, t, ext.Socket())
	if a.hello.Browser != nil {
		t.Errorf("hello %+v names a browser, which has not said hello", a.hello)
	}
	if a.hello.Protocol != protocol.ProtocolVersion || a.hello.Host == nil || a.hello.Host.PID != ext.PID() || a.hello.Host.Socket != ext.Socket() {
		t.Errorf("hello %+v, want protocol %d and host pid %d, socket %s", a.hello, protocol.ProtocolVersion, ext.PID(), ext.Socket())
	}
	if s := a.state.State; len(s.Tabs)+len(s.Tools)+len(s.Contexts) != 0 {
		t.Errorf("first state %+v, want an empty one", s)
	}
	// The browser's hello reaches a as a new hello.
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	if h := a.Expect(ctx, protocol.TypeHello); h.Browser == nil || h.Browser.ExtensionID != protocol.ExtensionID || h.Session != a.session {
		t.Errorf("hello after the browser's: %+v, want the browser and session %s", h, a.session)
	}

	tab := func(id int, title string) protocol.Tab {
		return protocol.Tab{ID: id, WindowID: 1, URL: "http://localhost/" + title, Title: title, Origin: "http://localhost", Allowed: true}
	}
	tool := func(tab int, name string) protocol.Tool {
		return protocol.Tool{TabID: tab, Origin: "http://localhost", Name: name, Description: "does " + name, InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	var expected protocol.State
	changes := []*protocol.Message{
		{Type: protocol.TypeState, State: &protocol.Snapshot{Tabs: []protocol.Tab{tab(1, "one"), tab(2, "two")}, Tools: []protocol.Tool{tool(1, "a"), tool(2, "b")}}},
		{Type: protocol.TypeTabUpdated, Tab: &protocol.Tab{ID: 3, Title: "three", Focused: true}},
		{Type: protocol.TypeToolsAdded, Tools: []protocol.Tool{tool(3, "c"), tool(3, "d"), tool(1, "e")}},
		{Type: protocol.TypeToolsRemoved, Removed: []protocol.ToolRef{{TabID: 3, Name: "d"}}},
		{Type: protocol.TypeContext, Context: &protocol.Context{TabID: 1, Providers: []protocol.ProviderSnapshot{{ID: "sel", Summary: "slice 42", Data: json.RawMessage(`{"slice":42}`)}}}},
		{Type: protocol.TypeContext, Context: &protocol.Context{TabID: 2, Providers: []protocol.ProviderSnapshot{{ID: "sel", Summary: "nothing"}}}},
		{Type: protocol.TypeTabRemoved, TabID: 2},
	}
	for _, m := range changes {
		if err := ext.Send(m); err != nil {
			t.Fatal(err)
		}
		expected.Apply(m)
	}
	// a sees every change, in order, as the browser sent it.
	for _, want := range changes {
		got := a.Expect(ctx, want.Type)
		if !reflect.DeepEqual(jsonOf(t, got), jsonOf(t, want)) {
			t.Errorf("shim got %s, want %s", jsonOf(t, got), jsonOf(t, want))
		}
	}
	// Now that a got the last change, the host has applied all of them:
	// a new shim gets them in its state.
	b := dialReady(ctx, t, ext.Socket())
	if b.session == a.session {
		t.Errorf("both shims got session %s", a.session)
	}
	if b.hello.Browser == nil || b.hello.Browser.Instance != "fakeext" {
		t.Errorf("second shim's hello %+v lacks the browser", b.hello)
	}
	if got, want := jsonOf(t, b.state.State), jsonOf(t, expected.Snapshot()); got != want {
		t.Errorf("new shim's state\n got %s\nwant %s", got, want)
	}
}

// jsonOf encodes v for comparisons and messages.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCallAnsweredToTheCallerOnly(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	b := dialReady(ctx, t, ext.Socket())

	idA := a.call(1, "echo", `{"who":"a"}`)
	call := awaitCall(ctx, t, ext, idA)
	if call.Name != "echo" || string(call.Arguments) != `{"who":"a"}` {
		t.Errorf("the browser got %+v", call)
	}
	r := a.Expect(ctx, protocol.TypeResult)
	if r.ID != idA || string(r.Output) != `{"args":{"who":"a"},"id":"`+idA+`"}` {
		t.Errorf("a got %s", jsonOf(t, r))
	}
	// b's next message is the answer to its own call, not a's.
	idB := b.call(1, "fail", `{}`)
	if e := b.Expect(ctx, protocol.TypeError); e.ID != idB || e.Error == nil || e.Error.Code != protocol.CodeToolError {
		t.Errorf("b got %s, want the tool_error for %s", jsonOf(t, e), idB)
	}
	// Both shims may use the same number after their prefix.
	if idA == idB {
		t.Fatalf("same id %s for both shims", idA)
	}
}

func TestAnswerPassedOnUnchanged(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	id := a.call(1, "block", `{}`)
	awaitCall(ctx, t, ext, id)
	// The browser's answer, in its own field order, with a field the
	// host does not know and white space: the shim gets the same bytes,
	// only compacted onto one line.
	raw := "{\"id\":\"" + id + "\",\n  \"output\": {\"z\":1, \"a\":[true,null]},\n  \"extra\":\"é\\u00e9\",\"type\":\"result\"}"
	if err := ext.SendFrame([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	l, err := a.NextLine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + id + `","output":{"z":1,"a":[true,null]},"extra":"é\u00e9","type":"result"}` + "\n"
	if string(l) != want {
		t.Errorf("shim got %q, want %q", l, want)
	}
}

func TestForeignCallIDRefused(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	b := dialReady(ctx, t, ext.Socket())
	for _, id := range []string{b.session + ".1", a.session, a.session + ".", "17", a.session + "0.1", ""} {
		a.SendMsg(&protocol.Message{Type: protocol.TypeCall, ID: id, Name: "echo", Arguments: json.RawMessage(`{}`)})
		if e := a.Expect(ctx, protocol.TypeError); e.ID != id || e.Error == nil || e.Error.Code != protocol.CodeBadRequest {
			t.Errorf("call with id %q: got %s, want a bad_request error for it", id, jsonOf(t, e))
		}
	}
	// None of them reached the browser: the first call it sees is the
	// next good one.
	good := a.call(1, "echo", `{}`)
	m, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeCall })
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != good {
		t.Errorf("the browser got call %q, want only %q", m.ID, good)
	}
	a.Expect(ctx, protocol.TypeResult)
}

func TestShimDisconnectCancelsItsCalls(t *testing.T) {
	ctx := testCtx(t)
	br := newBrowser()
	ext, log := start(t, br, fakeext.Options{Env: []string{"WEBMCP_DEBUG=1"}})
	a := dialReady(ctx, t, ext.Socket())
	b := dialReady(ctx, t, ext.Socket())
	idA := a.call(1, "block", `{}`)
	idB := b.call(1, "block", `{}`)
	awaitCalls(ctx, t, ext, idA, idB)

	a.Conn().Close()
	m, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeCancel })
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != idA {
		t.Errorf("the browser got cancel %q, want %q", m.ID, idA)
	}
	select {
	case id := <-br.cancelled:
		if id != idA {
			t.Errorf("the handler of %s was cancelled, want %s", id, idA)
		}
	case <-ctx.Done():
		t.Fatal("the handler's context was not cancelled")
	}
	// The browser's "cancelled" answer to a's call is dropped.
	if _, err := log.await(ctx, "dropped", idA); err != nil {
		t.Error(err)
	}
	// b's call is still under way; b cancels it itself and gets the
	// browser's answer.
	b.SendMsg(&protocol.Message{Type: protocol.TypeCancel, ID: idB})
	if e := b.Expect(ctx, protocol.TypeError); e.ID != idB || e.Error.Code != protocol.CodeCancelled {
		t.Errorf("b got %s, want cancelled for %s", jsonOf(t, e), idB)
	}
	if !ext.Cancelled(idB) {
		t.Errorf("the browser did not see b's cancel")
	}
}

func TestBrowserGone(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	id := a.call(1, "block", `{}`)
	awaitCall(ctx, t, ext, id)

	if err := ext.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	e := a.Expect(ctx, protocol.TypeError)
	if e.ID != id || e.Error == nil || e.Error.Code != protocol.CodeBrowserGone {
		t.Errorf("pending call got %s, want browser_gone", jsonOf(t, e))
	}
	a.ExpectEOF(ctx)
	if err := ext.Wait(ctx); err != nil {
		t.Errorf("host exit: %v, want status 0", err)
	}
	if _, err := os.Stat(ext.Socket()); !os.IsNotExist(err) {
		t.Errorf("socket still there after exit (stat: %v)", err)
	}
	if !strings.Contains(log.text(), "browser closed") {
		t.Errorf("no log line about the browser leaving:\n%s", log.text())
	}
}

func TestMalformedShimLinesSkipped(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	bad := []struct{ line, log string }{
		{`{"type":"call","id":`, "malformed"},
		{`[1,2,3]`, "malformed"},
		{`{"id":"x"}`, `no "type"`},
		{"{\"type\":\"call\",\"id\":\"" + a.session + ".9\",\"name\":\"\xff\"}", "not UTF-8"},
		{`{"type":"sing","id":"x"}`, `"sing"`},
		{`{"type":"result","id":"x","output":1}`, "does not take from shims"},
		{"", ""},
	}
	for _, b := range bad {
		a.Send(b.line)
	}
	for _, b := range bad {
		if b.log == "" {
			continue
		}
		if _, err := log.await(ctx, "shim "+a.session, b.log); err != nil {
			t.Errorf("line %q: %v", b.line, err)
		}
	}
	// The connection still works.
	id := a.call(1, "echo", `{"after":"garbage"}`)
	if r := a.Expect(ctx, protocol.TypeResult); r.ID != id {
		t.Errorf("got %s, want the result of %s", jsonOf(t, r), id)
	}
}

func TestMalformedBrowserMessagesSkipped(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	bad := []struct{ frame, log string }{
		{`{"type":"tabUpdated","tab":`, "malformed"},
		{`{"type":"tabUpdated","tab":{"id":"seven"}}`, "malformed tabUpdated"},
		{`{"type":"tabUpdated"}`, `without "tab"`},
		{`{"type":"result","output":1}`, "without a call id"},
		{`{"type":"teleport"}`, `unknown type "teleport"`},
		{`{"type":"call","id":"s1.1"}`, "only goes from the host"},
	}
	for _, b := range bad {
		if err := ext.SendFrame([]byte(b.frame)); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range bad {
		if _, err := log.await(ctx, "the browser", b.log); err != nil {
			t.Errorf("frame %q: %v", b.frame, err)
		}
	}
	// None reached the shim; the link goes on.
	if err := ext.UpdateTab(protocol.Tab{ID: 5, Title: "after"}); err != nil {
		t.Fatal(err)
	}
	if m := a.Expect(ctx, protocol.TypeTabUpdated); m.Tab == nil || m.Tab.ID != 5 {
		t.Errorf("got %s", jsonOf(t, m))
	}
}

func TestLargeCallGoesAsChunks(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	// About 3 MiB of JSON text, with multi-byte characters and much
	// escaping, so that chunk boundaries fall everywhere.
	var sb strings.Builder
	for sb.Len() < 3<<20 {
		sb.WriteString(`é€𝄞 "quoted" \back\slash <tag> & ` + "\t\u2028")
	}
	args, err := json.Marshal(map[string]string{"text": sb.String()})
	if err != nil {
		t.Fatal(err)
	}
	id := a.call(1, "echo", string(args))
	call := awaitCall(ctx, t, ext, id)
	if !bytes.Equal(call.Arguments, args) {
		t.Errorf("the browser got %d bytes of arguments, not the %d that were sent", len(call.Arguments), len(args))
	}
	st := ext.Stats()
	if st.Chunks < 3 {
		t.Errorf("the call came in %d chunks, want at least 3", st.Chunks)
	}
	if st.Largest > protocol.MaxHostFrame {
		t.Errorf("a frame of %d bytes, over the %d limit", st.Largest, protocol.MaxHostFrame)
	}
	// The answer, bigger than a host frame too, comes back whole.
	r := a.Expect(ctx, protocol.TypeResult)
	var out struct {
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil || !bytes.Equal(out.Args, args) {
		t.Errorf("the result does not carry the arguments back (%v)", err)
	}
}

func TestHugeBrowserFrameRefused(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	id := a.call(1, "block", `{}`)
	awaitCall(ctx, t, ext, id)

	// A header that claims a frame of 4 GiB - 1, and nothing after it.
	var hdr [4]byte
	nativemsg.ByteOrder.PutUint32(hdr[:], 0xFFFFFFFF)
	if err := ext.WriteRaw(hdr[:]); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := ext.Wait(ctx); !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("host exit: %v, want a non-zero status", err)
	}
	if !strings.Contains(log.text(), "4294967295 bytes") {
		t.Errorf("stderr does not name the frame's size:\n%s", log.text())
	}
	if e := a.Expect(ctx, protocol.TypeError); e.ID != id || e.Error.Code != protocol.CodeBrowserGone {
		t.Errorf("pending call got %s, want browser_gone", jsonOf(t, e))
	}
	if _, err := os.Stat(ext.Socket()); !os.IsNotExist(err) {
		t.Errorf("socket still there after exit (stat: %v)", err)
	}
}

func TestShimOfAnotherProtocolRefused(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{})
	a := dialReady(ctx, t, ext.Socket())
	a.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion + 1, Client: &protocol.ClientInfo{Name: "future-shim"}})
	if e := a.Expect(ctx, protocol.TypeError); e.Error == nil || e.Error.Code != protocol.CodeBadRequest || !strings.Contains(e.Error.Message, "protocol") {
		t.Errorf("got %s, want a bad_request about the protocol", jsonOf(t, e))
	}
	a.ExpectEOF(ctx)
	if _, err := log.await(ctx, "shim "+a.session, "protocol"); err != nil {
		t.Error(err)
	}
	// A shim of the right protocol is served.
	b := dialReady(ctx, t, ext.Socket())
	b.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "webmcp-shim", PID: 1}})
	id := b.call(1, "echo", `{}`)
	if r := b.Expect(ctx, protocol.TypeResult); r.ID != id {
		t.Errorf("got %s", jsonOf(t, r))
	}
}

func TestBrowserOfAnotherProtocolRefused(t *testing.T) {
	ctx := testCtx(t)
	ext, log := startSilent(t, newBrowser(), fakeext.Options{})
	if err := ext.Send(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion + 1}); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := ext.Wait(ctx); !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("host exit: %v, want a non-zero status", err)
	}
	if !strings.Contains(log.text(), "protocol") {
		t.Errorf("stderr does not say why:\n%s", log.text())
	}
}

func TestHostSaysHelloToTheBrowser(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := startSilent(t, nil, fakeext.Options{})
	m, err := ext.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != protocol.TypeHello || m.Protocol != protocol.ProtocolVersion || m.Host == nil || m.Host.PID != ext.PID() || m.Host.Socket != ext.Socket() {
		t.Errorf("the host's first message is %s, want its hello", jsonOf(t, m))
	}
}

func TestCallBeforeBrowserHelloIsForwarded(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := startSilent(t, nil, fakeext.Options{}) // no handler: not_found
	a := dial(ctx, t, ext.Socket())
	id := a.call(1, "anything", `{}`)
	awaitCall(ctx, t, ext, id)
	if e := a.Expect(ctx, protocol.TypeError); e.ID != id || e.Error.Code != protocol.CodeNotFound {
		t.Errorf("got %s, want the browser's not_found", jsonOf(t, e))
	}
}

// BenchmarkCallRoundTrip measures one call from a shim through the host
// binary to the fake browser and back.
func BenchmarkCallRoundTrip(b *testing.B) {
	ctx := context.Background()
	ext, err := fakeext.Start(ctx, fakeext.Options{
		HostBinary: hostBinary(b), RuntimeDir: filepath.Join(b.TempDir(), "run"), Env: []string{goraceEnv},
		Handler: func(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
			return json.RawMessage(`{"ok":true}`), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer ext.Close()
	c, err := net.Dial("unix", ext.Socket())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	var hello protocol.Message
	l, err := r.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(l, &hello)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		fmt.Fprintf(c, `{"type":"call","id":"%s.%d","tabId":1,"name":"t","arguments":{}}`+"\n", hello.Session, i)
		for {
			l, err := r.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(l, []byte(`"result"`)) {
				break
			}
		}
	}
}

// TestBrowserChunksJoined: messages the browser sends as chunks (over
// protocol.MaxBrowserChunk; here over 64 KiB) are joined and handled as if
// they had come whole: a state is applied and passed on, a result reaches
// the shim that asked, byte for byte, and a small answer sent between
// another message's pieces is not disturbed.
func TestBrowserChunksJoined(t *testing.T) {
	ctx := testCtx(t)
	big := strings.Repeat(`é€𝄞 "quoted" \back\slash `, 20000) // about 640 KiB of JSON text
	bigOut, _ := json.Marshal(map[string]string{"text": big})
	ext, _ := start(t, nil, fakeext.Options{
		ChunkOver: 64 << 10,
		Handler: func(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
			if call.Name == "big" {
				return bigOut, nil
			}
			return json.RawMessage(`"small"`), nil
		},
	})
	tools := make([]protocol.Tool, 200)
	for i := range tools {
		tools[i] = protocol.Tool{TabID: 1, Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("d", 2000)}
	}
	if err := ext.SetState([]protocol.Tab{{ID: 1, URL: "http://localhost/", Allowed: true}}, tools); err != nil {
		t.Fatal(err)
	}
	// The joined state: in the shim's greeting, or broadcast right after it.
	a := dialReady(ctx, t, ext.Socket())
	if len(a.state.State.Tools) == 0 {
		a.state = a.Expect(ctx, protocol.TypeState)
	}
	if n := len(a.state.State.Tools); n != len(tools) {
		t.Fatalf("the shim got %d tools from the chunked state, want %d", n, len(tools))
	}
	idBig := a.call(1, "big", `{}`)
	idSmall := a.call(2, "small", `{}`)
	got := map[string]json.RawMessage{}
	for len(got) < 2 {
		r := a.Expect(ctx, protocol.TypeResult)
		got[r.ID] = r.Output
	}
	if !bytes.Equal(got[idBig], bigOut) {
		t.Errorf("the chunked result reached the shim as %d bytes, want the %d the browser sent", len(got[idBig]), len(bigOut))
	}
	if string(got[idSmall]) != `"small"` {
		t.Errorf("the small result = %s", got[idSmall])
	}
}
