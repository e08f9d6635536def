package host_test

import (
	"testing"

	"github.com/webmcp-bridge/bridge/host"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// TestMaxShims: past Options.MaxShims a connection is closed before the
// hello and logged; once a shim leaves, the next one is served again.
func TestMaxShims(t *testing.T) {
	ctx := bridgetest.Context(t)
	p, err := runInProcess(t, bridgetest.RuntimeDir(t), host.Options{MaxShims: 2})
	if err != nil {
		t.Fatal(err)
	}
	var shims []*bridgetest.LineConn
	for range 2 {
		s := bridgetest.DialLine(t, p.socket)
		s.Expect(ctx, protocol.TypeHello)
		shims = append(shims, s)
	}
	third := bridgetest.DialLine(t, p.socket)
	third.ExpectEOF(ctx)
	if _, err := p.log.await(ctx, "refused a shim", "2 shims are connected already"); err != nil {
		t.Fatal(err)
	}

	shims[0].Close()
	if _, err := p.log.await(ctx, "shim s1 disconnected"); err != nil {
		t.Fatal(err)
	}
	bridgetest.DialLine(t, p.socket).Expect(ctx, protocol.TypeHello)
}

// TestDefaultMaxShims pins the documented default, a literal here.
func TestDefaultMaxShims(t *testing.T) {
	if host.DefaultMaxShims != 256 {
		t.Errorf("DefaultMaxShims = %d, want the documented 256", host.DefaultMaxShims)
	}
}
