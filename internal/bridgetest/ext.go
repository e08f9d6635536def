package bridgetest

import (
	"os"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// StartExt runs a real webmcp-host with fakeext playing the extension, and
// returns once the host listens. Unset options get test defaults: the host
// built by [Binary], a new [RuntimeDir], and a [Log] of the host's stderr;
// [GoRace] is added to the host's environment. The extension has said
// nothing yet. When the test ends the extension goes away, and a host that
// had not exited already must exit cleanly.
func StartExt(t testing.TB, opts fakeext.Options) *fakeext.Ext {
	t.Helper()
	if opts.HostBinary == "" {
		opts.HostBinary = Binary(t, HostPackage)
	}
	if opts.RuntimeDir == "" {
		opts.RuntimeDir = RuntimeDir(t)
	}
	if opts.Stderr == nil {
		opts.Stderr = NewLog(t, "webmcp-host")
	}
	opts.Env = append(opts.Env, GoRace())
	ext, err := fakeext.Start(Context(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-ext.Exited():
			// The test saw the host exit (or killed it) and checked how.
			ext.Close()
		default:
			if err := ext.Close(); err != nil {
				t.Errorf("webmcp-host exit: %v", err)
			}
		}
	})
	return ext
}

// StartHost runs a webmcp-host in the runtime directory dir with a fake
// extension that has said hello and whose pages are p.
func StartHost(t testing.TB, dir string, p *Page) *fakeext.Ext {
	t.Helper()
	ext := StartExt(t, fakeext.Options{RuntimeDir: dir, Handler: p.Serve, RequestHandler: p.ServeRequest})
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	AwaitHostBrowser(t, ext.Socket())
	return ext
}

// AwaitHostBrowser waits until the host at socket has the browser's hello,
// as a shim that connects sees it: the host reads the browser's messages
// in its own time, and a test that connects a shim right after the fake
// extension said hello would otherwise race it.
func AwaitHostBrowser(t testing.TB, socket string) {
	t.Helper()
	ctx := Context(t)
	c := DialLine(t, socket)
	defer c.Close()
	c.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "bridgetest", PID: os.Getpid()}})
	for {
		m, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("the host at %s never had the browser's hello: %v", socket, err)
		}
		if m.Type == protocol.TypeHello && m.Browser != nil {
			return
		}
	}
}

// AwaitHostState waits until the host at socket has a state for which ok
// holds, as a shim that connects sees it: after the extension sent a
// change, it tells when the host has applied it.
func AwaitHostState(t testing.TB, socket string, ok func(*protocol.Snapshot) bool) {
	t.Helper()
	ctx := Context(t)
	c := DialLine(t, socket)
	defer c.Close()
	c.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &protocol.ClientInfo{Name: "bridgetest", PID: os.Getpid()}})
	var state protocol.State
	ready := false
	for {
		m, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("the host at %s never had the state: %v", socket, err)
		}
		if state.Apply(m) && m.Type == protocol.TypeState {
			ready = true
		}
		if ready && ok(state.Snapshot()) {
			return
		}
	}
}
