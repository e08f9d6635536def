package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// hostBin is the webmcp-host binary that TestMain builds.
var hostBin string

// goraceEnv keeps a race-enabled binary from sleeping at exit; a race it
// found still makes it exit with status 66.
const goraceEnv = "GORACE=atexit_sleep_ms=0"

// dialEnv makes the test binary a tiny client instead (see dialHelper).
const dialEnv = "WEBMCP_TEST_DIAL"

func TestMain(m *testing.M) {
	if sock := os.Getenv(dialEnv); sock != "" {
		os.Exit(dialHelper(sock))
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "webmcp-host-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	hostBin = filepath.Join(dir, "webmcp-host")
	args := []string{"build", "-o", hostBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/webmcp-bridge/bridge/cmd/webmcp-host")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building webmcp-host:", err)
		return 1
	}
	return m.Run()
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
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// runtimeDir returns a path for the host's runtime directory that the host
// has to create; it is short, since socket paths are limited to ~100 bytes.
func runtimeDir(t *testing.T) string {
	base, err := os.MkdirTemp("", "wmh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	return filepath.Join(base, "run")
}

// logbook collects the host's stderr, copies it to the test log and lets a
// test wait for a line.
type logbook struct {
	t       testing.TB
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
}

func newLogbook(t testing.TB) *logbook {
	return &logbook{t: t, changed: make(chan struct{})}
}

// Write takes one or more whole lines.
func (b *logbook) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		b.t.Log("host: " + l)
		b.lines = append(b.lines, l)
	}
	close(b.changed)
	b.changed = make(chan struct{})
	return len(p), nil
}

// await returns the first line containing every one of subs.
func (b *logbook) await(ctx context.Context, subs ...string) (string, error) {
	for i := 0; ; {
		b.mu.Lock()
		for ; i < len(b.lines); i++ {
			if containsAll(b.lines[i], subs) {
				l := b.lines[i]
				b.mu.Unlock()
				return l, nil
			}
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return "", fmt.Errorf("no log line with %q: %w", subs, ctx.Err())
		}
	}
}

// text returns the whole log.
func (b *logbook) text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// browser is the fake extension's behaviour in these tests, by tool name:
// "echo" answers {"id":…,"args":…}; "block" waits for its cancellation and
// reports it on cancelled; "fail" answers a tool_error; anything else
// not_found.
type browser struct {
	cancelled chan string
}

func newBrowser() *browser { return &browser{cancelled: make(chan string, 64)} }

func (b *browser) handle(ctx context.Context, call *webmcp.Message) (json.RawMessage, *webmcp.Error) {
	switch call.Name {
	case "echo":
		out, err := json.Marshal(map[string]any{"id": call.ID, "args": call.Arguments})
		if err != nil {
			return nil, webmcp.Errorf(webmcp.CodeInternal, "%v", err)
		}
		return out, nil
	case "block":
		<-ctx.Done()
		b.cancelled <- call.ID
		return nil, nil
	case "fail":
		return nil, webmcp.Errorf(webmcp.CodeToolError, "the tool failed on purpose")
	}
	return nil, webmcp.Errorf(webmcp.CodeNotFound, "no tool %q", call.Name)
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
	opts.HostBinary = hostBin
	if opts.RuntimeDir == "" {
		opts.RuntimeDir = runtimeDir(t)
	}
	opts.Stderr = log
	// A race-enabled binary sleeps a second before exiting by default.
	opts.Env = append(opts.Env, goraceEnv)
	if b != nil {
		opts.Handler = b.handle
	}
	ext, err := fakeext.Start(testCtx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-ext.Exited():
			// The test saw the host exit and checked how.
			ext.Close()
		default:
			if err := ext.Close(); err != nil {
				t.Errorf("host exit: %v", err)
			}
		}
	})
	return ext, log
}

// shim plays a webmcp-shim on the host's socket with newline-delimited
// JSON.
type shim struct {
	t       *testing.T
	conn    net.Conn
	session string
	hello   *webmcp.Message
	state   *webmcp.Message

	mu      sync.Mutex
	lines   [][]byte
	err     error // why reading stopped
	changed chan struct{}
}

// dial connects a shim and reads the host's hello and state.
func dial(ctx context.Context, t *testing.T, socket string) *shim {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	s := &shim{t: t, conn: c, changed: make(chan struct{})}
	t.Cleanup(func() { c.Close() })
	go s.readLoop()
	if s.hello = s.expect(ctx, webmcp.TypeHello); s.hello.Session == "" {
		t.Fatalf("hello without a session: %+v", s.hello)
	}
	s.session = s.hello.Session
	if s.state = s.expect(ctx, webmcp.TypeState); s.state.State == nil {
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
		if h := s.expect(ctx, webmcp.TypeHello); h.Browser == nil || h.Session != s.session {
			t.Fatalf("shim %s got hello %+v, want one with the browser", s.session, h)
		}
	}
	return s
}

func (s *shim) readLoop() {
	r := bufio.NewReader(s.conn)
	for {
		l, err := r.ReadBytes('\n')
		s.mu.Lock()
		if err != nil {
			if len(l) > 0 {
				err = fmt.Errorf("a line without a newline at the end (%w): %q", err, l)
			}
			s.err = err
		} else {
			s.lines = append(s.lines, l)
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// nextLine returns the next line from the host, newline included.
func (s *shim) nextLine(ctx context.Context) ([]byte, error) {
	for {
		s.mu.Lock()
		if len(s.lines) > 0 {
			l := s.lines[0]
			s.lines = s.lines[1:]
			s.mu.Unlock()
			return l, nil
		}
		err, ch := s.err, s.changed
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("shim %s waiting for a message: %w", s.session, ctx.Err())
		}
	}
}

// next returns the next message from the host.
func (s *shim) next(ctx context.Context) (*webmcp.Message, error) {
	l, err := s.nextLine(ctx)
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(l, []byte("\n")) || bytes.Count(l, []byte("\n")) != 1 {
		return nil, fmt.Errorf("not one line: %q", l)
	}
	m := new(webmcp.Message)
	if err := json.Unmarshal(l, m); err != nil {
		return nil, fmt.Errorf("malformed line from the host (%v): %q", err, l)
	}
	return m, nil
}

// expect returns the next message and fails the test unless it has the
// type.
func (s *shim) expect(ctx context.Context, typ string) *webmcp.Message {
	s.t.Helper()
	m, err := s.next(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	if m.Type != typ {
		s.t.Fatalf("shim %s got a %q message, want %q: %+v", s.session, m.Type, typ, m)
	}
	return m
}

// expectEOF fails the test unless the host closes the connection next.
func (s *shim) expectEOF(ctx context.Context) {
	s.t.Helper()
	m, err := s.next(ctx)
	if err == nil {
		s.t.Fatalf("shim %s got %+v, want the connection closed", s.session, m)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "connection reset") {
		s.t.Fatalf("shim %s: %v, want the connection closed", s.session, err)
	}
}

// send writes one line.
func (s *shim) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.conn, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// call sends a call with the given id suffix and returns the whole id.
func (s *shim) call(n int, name string, args string) string {
	s.t.Helper()
	id := fmt.Sprintf("%s.%d", s.session, n)
	s.sendMsg(&webmcp.Message{Type: webmcp.TypeCall, ID: id, TabID: 1, Name: name, Arguments: json.RawMessage(args)})
	return id
}

func (s *shim) sendMsg(m *webmcp.Message) {
	s.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
}

// awaitCall waits until the fake browser receives the call with the id.
func awaitCall(ctx context.Context, t *testing.T, ext *fakeext.Ext, id string) *webmcp.Message {
	t.Helper()
	m, err := ext.Await(ctx, func(m *webmcp.Message) bool { return m.Type == webmcp.TypeCall && m.ID == id })
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
		m, err := ext.Await(ctx, func(m *webmcp.Message) bool { return m.Type == webmcp.TypeCall })
		if err != nil {
			t.Fatalf("calls %v did not reach the browser: %v", want, err)
		}
		delete(want, m.ID)
	}
}
