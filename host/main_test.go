package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// hostBinary is the webmcp-host binary under test.
func hostBinary(t testing.TB) string { return bridgetest.Binary(t, bridgetest.HostPackage) }

// goraceEnv keeps a race-enabled binary from sleeping at exit; a race it
// found still makes it exit with status 66.
var goraceEnv = bridgetest.GoRace()

// dialEnv makes the test binary a tiny client instead (see dialHelper).
const dialEnv = "WEBMCP_TEST_DIAL"

func TestMain(m *testing.M) {
	if sock := os.Getenv(dialEnv); sock != "" {
		os.Exit(dialHelper(sock))
	}
	bridgetest.Main(m)
}

// dialHelper connects to the socket, reads until the host closes the
// connection, and reports how many bytes it got on stdout.
func dialHelper(sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	n, _ := io.Copy(io.Discard, c)
	fmt.Printf("closed after %d bytes\n", n)
	return 0
}

// testCtx bounds every wait of a test, so that a broken host fails the test
// instead of hanging it.
func testCtx(t *testing.T) context.Context { return bridgetest.Context(t) }

// runtimeDir returns a path for the host's runtime directory that the host
// has to create.
func runtimeDir(t *testing.T) string {
	return filepath.Join(bridgetest.RuntimeDir(t), "run")
}

// logbook is the host's log: the test log gets it, and a test can wait for
// a line.
type logbook struct{ *bridgetest.Log }

func newLogbook(t testing.TB) *logbook { return &logbook{bridgetest.NewLog(t, "host")} }

// await returns the first line containing every one of subs.
func (b *logbook) await(ctx context.Context, subs ...string) (string, error) {
	return b.Await(ctx, subs...)
}

// text returns the whole log.
func (b *logbook) text() string { return b.Text() }

// browser is the fake extension's behaviour in these tests, by tool name:
// "echo" answers {"id":…,"args":…}; "block" waits for its cancellation and
// reports it on cancelled; "fail" answers a tool_error; anything else
// not_found.
type browser struct {
	cancelled chan string
}

func newBrowser() *browser { return &browser{cancelled: make(chan string, 64)} }

func (b *browser) handle(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
	switch call.Name {
	case "echo":
		out, err := json.Marshal(map[string]any{"id": call.ID, "args": call.Arguments})
		if err != nil {
			return nil, protocol.Errorf(protocol.CodeInternal, "%v", err)
		}
		return out, nil
	case "block":
		<-ctx.Done()
		b.cancelled <- call.ID
		return nil, nil
	case "fail":
		return nil, protocol.Errorf(protocol.CodeToolError, "the tool failed on purpose")
	}
	return nil, protocol.Errorf(protocol.CodeNotFound, "no tool %q", call.Name)
}

// start runs the host binary with a fake extension that has said hello.
func start(t *testing.T, b *browser, opts fakeext.Options) (*fakeext.Ext, *logbook) {
	t.Helper()
	ext, log := startSilent(t, b, opts)
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	return ext, log
}

// startSilent runs the host binary with a fake extension that has said
// nothing yet.
func startSilent(t *testing.T, b *browser, opts fakeext.Options) (*fakeext.Ext, *logbook) {
	t.Helper()
	log := newLogbook(t)
	opts.Stderr = log
	if opts.RuntimeDir == "" {
		opts.RuntimeDir = runtimeDir(t)
	}
	if b != nil {
		opts.Handler = b.handle
	}
	return bridgetest.StartExt(t, opts), log
}

// shim plays a webmcp-shim on the host's socket.
type shim struct {
	*bridgetest.LineConn
	t       *testing.T
	session string
	hello   *protocol.Message
	state   *protocol.Message
}

// dial connects a shim and reads the host's hello and state.
func dial(ctx context.Context, t *testing.T, socket string) *shim {
	t.Helper()
	s := &shim{LineConn: bridgetest.DialLine(t, socket), t: t}
	if s.hello = s.Expect(ctx, protocol.TypeHello); s.hello.Session == "" {
		t.Fatalf("hello without a session: %+v", s.hello)
	}
	s.session = s.hello.Session
	if s.state = s.Expect(ctx, protocol.TypeState); s.state.State == nil {
		t.Fatalf("state without a state: %+v", s.state)
	}
	return s
}

// dialReady is dial for a host whose browser has said hello: it also
// consumes the second hello that a shim gets when it connected before the
// host read the browser's hello.
func dialReady(ctx context.Context, t *testing.T, socket string) *shim {
	t.Helper()
	s := dial(ctx, t, socket)
	if s.hello.Browser == nil {
		if h := s.Expect(ctx, protocol.TypeHello); h.Browser == nil || h.Session != s.session {
			t.Fatalf("shim %s got hello %+v, want one with the browser", s.session, h)
		}
	}
	return s
}

// call sends a call with the given id suffix and returns the whole id.
func (s *shim) call(n int, name string, args string) string {
	s.t.Helper()
	id := fmt.Sprintf("%s.%d", s.session, n)
	s.SendMsg(&protocol.Message{Type: protocol.TypeCall, ID: id, TabID: 1, Name: name, Arguments: json.RawMessage(args)})
	return id
}

// awaitCall waits until the fake browser receives the call with the id.
func awaitCall(ctx context.Context, t *testing.T, ext *fakeext.Ext, id string) *protocol.Message {
	t.Helper()
	m, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeCall && m.ID == id })
	if err != nil {
		t.Fatalf("call %s did not reach the browser: %v", id, err)
	}
	return m
}

// awaitCalls waits until the fake browser has received calls with all the
// ids, in any order.
func awaitCalls(ctx context.Context, t *testing.T, ext *fakeext.Ext, ids ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for len(want) > 0 {
		m, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeCall })
		if err != nil {
			t.Fatalf("calls %v did not reach the browser: %v", want, err)
		}
		delete(want, m.ID)
	}
}
