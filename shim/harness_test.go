package shim_test

// These tests run the shim's Server in the test process, serving MCP over
// the SDK's in-memory transports, against a real webmcp-host with
// internal/fakeext playing the extension (see internal/bridgetest).
// cmd/webmcp-shim keeps a few smoke tests of the binaries.

import (
	"fmt"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

func TestMain(m *testing.M) { bridgetest.Main(m) }

// startShim serves a shim for the runtime directory dir in this process,
// with the given call timeout (0: the default), and connects an MCP client
// to it. Its calls hardly wait for a browser to connect (await_test.go
// tests that wait): these tests start their hosts first.
func startShim(t testing.TB, dir string, timeout time.Duration) *bridgetest.MCPClient {
	t.Helper()
	if timeout == 0 {
		timeout = shim.DefaultTimeout
	}
	srv := shim.New(shim.Options{Dir: dir, Timeout: timeout, BrowserWait: time.Millisecond, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	return bridgetest.ServeMCP(t, srv.Serve)
}

// setup starts a host with page p, the given tabs and tools, and a shim
// (with the call timeout, 0: the default) whose tools include want. It
// returns the shim's client, the fake extension and the runtime directory.
func setup(t testing.TB, p *bridgetest.Page, tabs []protocol.Tab, tools []protocol.Tool, want []string, timeout time.Duration) (*bridgetest.MCPClient, *fakeext.Ext, string) {
	t.Helper()
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, p)
	sc := startShim(t, dir, timeout)
	if err := ext.SetState(tabs, tools); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, fmt.Sprintf("%v appear", want), bridgetest.Has(want...))
	return sc, ext, dir
}
