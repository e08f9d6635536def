package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/host"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// These tests run host.Run in the test process, for what the binary does
// not let a test set (small queues) or arrange (a stale socket at its own
// path), and speak native messaging to it directly.

// inproc is a host.Run in this process and the browser end of its stdio.
type inproc struct {
	socket string
	log    *logbook
	w      *nativemsg.Writer
	stdin  io.WriteCloser
	msgs   chan *protocol.Message // from the host, until it closes stdout
	done   chan error             // Run's result
}

func runInProcess(t *testing.T, dir string, opts host.Options) (*inproc, error) {
	ctx := testCtx(t)
	p := &inproc{log: newLogbook(t), msgs: make(chan *protocol.Message, 4096), done: make(chan error, 1)}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	p.stdin, p.w = stdinW, nativemsg.NewWriter(stdinW, protocol.MaxBrowserFrame)
	opts.Stdin, opts.Stdout, opts.Stderr = stdinR, stdoutW, p.log
	opts.Origin, opts.RuntimeDir = protocol.ExtensionOrigin, dir
	// ready ends when the host listens or Run returned.
	ready, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		err := host.Run(ctx, opts)
		stdoutW.Close()
		p.done <- err
		cancel()
	}()
	go func() {
		defer close(p.msgs)
		r := nativemsg.NewReader(stdoutR, protocol.MaxHostFrame)
		for {
			b, err := r.Read()
			if err != nil {
				return
			}
			m := new(protocol.Message)
			if err := json.Unmarshal(b, m); err != nil {
				t.Errorf("malformed frame from the host: %v", err)
				continue
			}
			p.msgs <- m
		}
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		for range p.msgs {
		}
	})
	l, err := p.log.await(ready, "listening on ")
	if err != nil {
		select {
		case err := <-p.done:
			return nil, err
		default:
		}
		t.Fatal(err)
	}
	p.socket = l[strings.Index(l, "listening on ")+len("listening on "):]
	return p, nil
}

func (p *inproc) send(t *testing.T, m *protocol.Message) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.w.Write(b); err != nil {
		t.Fatal(err)
	}
}

// await returns the next message from the host that matches.
func (p *inproc) await(ctx context.Context, t *testing.T, match func(*protocol.Message) bool) *protocol.Message {
	t.Helper()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				t.Fatal("the host closed stdout")
			}
			if match(m) {
				return m
			}
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}

// stop closes stdin and returns Run's result.
func (p *inproc) stop(ctx context.Context, t *testing.T) error {
	t.Helper()
	p.stdin.Close()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		t.Fatal("host.Run did not return after stdin closed")
		return nil
	}
}

func TestSlowShimDisconnected(t *testing.T) {
	ctx := testCtx(t)
	p, err := runInProcess(t, runtimeDir(t), host.Options{QueueLen: 4})
	if err != nil {
		t.Fatal(err)
	}
	p.send(t, &protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Browser: &protocol.Browser{Name: "test"}})

	// The slow shim reads its hello and state, makes a call, and then
	// reads no more.
	slow, err := endpoint.Dial(ctx, p.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	r := bufio.NewReader(slow)
	var hello protocol.Message
	for hello.Session == "" || hello.Browser == nil {
		l, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(l, &hello); err != nil {
			t.Fatal(err)
		}
	}
	id := hello.Session + ".1"
	fmt.Fprintf(slow, `{"type":"call","id":%q,"tabId":1,"name":"x","arguments":{}}`+"\n", id)
	p.await(ctx, t, func(m *protocol.Message) bool { return m.Type == protocol.TypeCall && m.ID == id })

	fast := dialReady(ctx, t, p.socket)

	// Far more than the slow shim's socket buffer and queue hold. The
	// fast shim reads each message before the next is sent, so that it
	// keeps up however busy the machine is (a queue of 4 is soon full for
	// a reader that the scheduler leaves waiting), and gets everything, in
	// order.
	const n = 64
	title := strings.Repeat("t", 256<<10)
	for i := range n {
		p.send(t, &protocol.Message{Type: protocol.TypeTabUpdated, Tab: &protocol.Tab{ID: i + 1, Title: title}})
		if m := fast.Expect(ctx, protocol.TypeTabUpdated); m.Tab.ID != i+1 || len(m.Tab.Title) != len(title) {
			t.Fatalf("fast shim got tab %d (title of %d bytes), want tab %d", m.Tab.ID, len(m.Tab.Title), i+1)
		}
	}
	if _, err := p.log.await(ctx, "shim "+hello.Session+" disconnected", "fell behind"); err != nil {
		t.Fatal(err)
	}
	if m := p.await(ctx, t, func(m *protocol.Message) bool { return m.Type == protocol.TypeCancel }); m.ID != id {
		t.Errorf("the browser got cancel %q, want %q", m.ID, id)
	}
	// The slow shim's connection was closed: after what was in the
	// socket buffer, it reads the end.
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Errorf("slow shim: %v, want a closed connection", err)
	}
	if err := p.stop(ctx, t); err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestStaleSocketRemoved(t *testing.T) {
	bridgetest.UnixOnly(t, "Unix sockets left by dead hosts (webmcp: TestRemoveStaleEndpoints)")
	ctx := testCtx(t)
	dir := runtimeDir(t)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A socket left at this process's own path, and one of another host
	// whose process lives (the test's parent: a socket of a dead process
	// would rightly be removed as stale).
	own := endpoint.SocketPath(dir, os.Getpid())
	other := endpoint.SocketPath(dir, os.Getppid())
	for _, path := range []string{own, other} {
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		l.SetUnlinkOnClose(false)
		l.Close()
	}
	p, err := runInProcess(t, dir, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.socket != own {
		t.Errorf("host listens on %s, want %s", p.socket, own)
	}
	if _, err := p.log.await(ctx, "removed a stale socket", own); err != nil {
		t.Error(err)
	}
	dial(ctx, t, own) // it is the live host's now
	if err := p.stop(ctx, t); err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("own socket still there after Run (stat: %v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another host's socket was touched: %v", err)
	}
}

func TestOwnPathTakenByAFile(t *testing.T) {
	bridgetest.UnixOnly(t, "a file that is not a socket at the host path")
	dir := runtimeDir(t)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	own := endpoint.SocketPath(dir, os.Getpid())
	if err := os.WriteFile(own, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := runInProcess(t, dir, host.Options{})
	if err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Run = %v, want an error that %s is not a socket", err, own)
	}
	if b, err := os.ReadFile(own); err != nil || string(b) != "not a socket" {
		t.Errorf("the file was changed: %q, %v", b, err)
	}
}

func TestRunRefusesOrigin(t *testing.T) {
	err := host.Run(t.Context(), host.Options{Stdin: strings.NewReader(""), Stdout: io.Discard, Origin: "chrome-extension://other/", RuntimeDir: runtimeDir(t)})
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("Run = %v, want a refusal", err)
	}
}

func TestParseArgs(t *testing.T) {
	o := protocol.ExtensionOrigin
	for _, tc := range []struct {
		args   []string
		origin string
		help   bool
		err    bool
	}{
		{args: []string{o}, origin: o},
		{args: []string{o, "--parent-window=0"}, origin: o},
		{args: []string{"--parent-window=1234", o}, origin: o},
		{args: []string{"--help"}, help: true},
		{args: []string{"-h"}, help: true},
		{args: nil, err: true},
		{args: []string{"--parent-window=0"}, err: true},
		{args: []string{"chrome-extension://x/"}, origin: "chrome-extension://x/"}, // refused later, by CheckOrigin
		// Firefox: the manifest's path, then the add-on's ID.
		{args: []string{"/home/u/.mozilla/native-messaging-hosts/dev.webmcp.bridge.json", protocol.FirefoxAddonID}, origin: protocol.FirefoxAddonID},
		{args: []string{`C:\p\share\webmcp-bridge\firefox\NativeMessagingHosts\dev.webmcp.bridge.JSON`, protocol.FirefoxAddonID}, origin: protocol.FirefoxAddonID},
		{args: []string{"/x/dev.webmcp.bridge.json", "other@example.com"}, origin: "other@example.com"}, // refused later
	} {
		origin, help, err := host.ParseArgs(tc.args)
		if origin != tc.origin || help != tc.help || (err != nil) != tc.err {
			t.Errorf("ParseArgs(%q) = %q, %v, %v; want %q, %v, error %v", tc.args, origin, help, err, tc.origin, tc.help, tc.err)
		}
	}
	if err := host.CheckOrigin(o); err != nil {
		t.Errorf("CheckOrigin(%q) = %v", o, err)
	}
	// A store's ID, which the install lists, is accepted; not without it.
	store := "abcdefghijklmnopabcdefghijklmnop"
	if err := host.CheckOrigin("chrome-extension://"+store+"/", store); err != nil {
		t.Errorf("CheckOrigin of the store's ID, listed: %v", err)
	}
	if err := host.CheckOrigin("chrome-extension://"+store+"/", "ponmlkjihgfedcbaponmlkjihgfedcba"); err == nil || !strings.Contains(err.Error(), "--extension-id") {
		t.Errorf("CheckOrigin of an ID the install does not list = %v, want a refusal naming --extension-id", err)
	}
	if err := host.CheckOrigin("chrome-extension:///", ""); err == nil {
		t.Errorf("CheckOrigin of an empty ID accepted")
	}
	if err := host.CheckOrigin(protocol.FirefoxAddonID); err != nil {
		t.Errorf("CheckOrigin(%q) = %v", protocol.FirefoxAddonID, err)
	}
	for _, bad := range []string{"", "chrome-extension://x/", strings.TrimSuffix(o, "/"), strings.ToUpper(o),
		"other@example.com", strings.ToUpper(protocol.FirefoxAddonID), "moz-extension://" + protocol.FirefoxAddonID + "/",
		"/home/u/.mozilla/native-messaging-hosts/dev.webmcp.bridge.json"} {
		if err := host.CheckOrigin(bad); err == nil {
			t.Errorf("CheckOrigin(%q) = nil, want a refusal", bad)
		}
	}
}
