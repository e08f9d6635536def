package main_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// TestChromeLaunchThroughTheBinaries: webmcp-host started as Chrome on
// Windows starts it (stdio, the origin, then --parent-window=0), and the
// webmcp-shim binary over the private link (a named pipe on Windows): a
// call with a 2 MiB argument comes back whole (chunked both ways), and a
// call that times out is cancelled in the page. Run under Wine, it is the
// Windows integration test.
func TestChromeLaunchThroughTheBinaries(t *testing.T) {
	// A hang guard for two binaries' builds, 2 MiB each way and an 8 s
	// timeout on a busy machine: bridgetest.Timeout is too short for that.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	b := bridgetest.NewBlocker()
	p.Handle("slow", b.Handler)
	// measure answers with the size and hash of its argument "data".
	p.Handle("measure", func(_ context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
		var args struct{ Data string }
		if err := json.Unmarshal(call.Arguments, &args); err != nil {
			return nil, &protocol.Error{Code: "bad_arguments", Message: err.Error()}
		}
		sum := sha256.Sum256([]byte(args.Data))
		return json.RawMessage(fmt.Sprintf(`{"tab":%d,"name":%q,"args":{"len":%d,"sha256":%q}}`, call.TabID, call.Name, len(args.Data), hex.EncodeToString(sum[:]))), nil
	})
	ext := bridgetest.StartExt(t, fakeext.Options{RuntimeDir: dir, Handler: p.Serve, RequestHandler: p.ServeRequest, Args: []string{"--parent-window=0"}})
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostBrowser(t, ext.Socket())
	// The timeout ends the slow call; the 2 MiB call must fit in it on a
	// busy machine with the race detector (1 s did not, once).
	sc := startShim(t, dir, "--timeout", "8s")
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(3, "Editor")}, []protocol.Tool{bridgetest.Tool(3, "measure"), bridgetest.Tool(3, "slow")}); err != nil {
		t.Fatal(err)
	}
	sc.AwaitTools(ctx, "measure and slow appear", bridgetest.Has("measure", "slow"))

	big := strings.Repeat("0123456789abcdef", 2<<20/16)
	sum := sha256.Sum256([]byte(big))
	res := sc.Call(ctx, "measure", map[string]any{"data": big})
	var got bridgetest.Echoed
	bridgetest.Structured(t, res, &got)
	if res.IsError || got.Args["len"] != float64(len(big)) || got.Args["sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("measure of 2 MiB: error %v, the page got %v; text %.300s", res.IsError, got.Args, bridgetest.Text(res))
	}

	res = sc.Call(ctx, "slow", nil)
	if !res.IsError || !strings.HasPrefix(bridgetest.Text(res), "timed out after 8s; the call was cancelled in the page.") {
		t.Errorf("slow = %q, isError %v", bridgetest.Text(res), res.IsError)
	}
	id := bridgetest.Await(ctx, t, b.Started, "the slow call to start")
	if _, err := ext.Await(ctx, bridgetest.IsCancel(id)); err != nil {
		t.Fatalf("the extension got no cancel for %s: %v", id, err)
	}
}
