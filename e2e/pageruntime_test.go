package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servePageRuntime serves e2e/testdata/pageruntime on a loopback port and
// returns its base URL (localhost, allowed by default).
func servePageRuntime(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(filepath.Join(repoRoot, "e2e", "testdata", "pageruntime")))}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://localhost:%d", ln.Addr().(*net.TCPAddr).Port)
}

// plainBrowser starts Chromium without the extension, in mode m, and opens
// url in it.
func plainBrowser(t *testing.T, m mode, url string) context.Context {
	t.Helper()
	features := "NetworkService,NetworkServiceInProcess"
	if m == native {
		features += ",WebMCP"
	}
	logs := &logBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("enable-features", features),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.CombinedOutput(logs.prefixed("chromium: ")),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s without the extension: %v\n%s", url, err, logs.String())
	}
	return tab
}

// A page runtime that takes any document.modelContext for the browser's
// own, as @mcp-b/global 5.1 does, works with the extension as it works
// without: in polyfill mode its own end-to-end page passed only without the
// extension ("invalid input object: value is not an object": it calls
// executeTool with JSON text, which Chromium 156 refuses and the polyfill
// refused too); in native mode it fails the same with and without (the
// browser's own refuses the text). An agent can call the tool it registers
// in both modes. Issue FID part B.
func TestPageRuntimeTakesPolyfillForNative(t *testing.T) {
	url := servePageRuntime(t) + "/mcpb-5.html"
	forEachMode(t, func(t *testing.T, m mode) {
		want := eval[string](t, plainBrowser(t, m, url), `window.outcome`)
		b := start(t, m)
		tab, _ := b.open(url)
		got := eval[string](t, tab, `window.outcome`)
		// Without the extension the runtime installs its own polyfill in
		// polyfill mode; with it, it finds the extension's.
		wantHere := want
		if m == polyfill {
			wantHere = strings.Replace(want, "own polyfill:", "native:", 1)
			if !strings.Contains(want, "PASSED") {
				t.Fatalf("without the extension the page says %q, want it to pass", want)
			}
		}
		if got != wantHere {
			t.Errorf("with the extension the page says\n%q\nwithout it\n%q", got, want)
		}
		b.waitTool("json-user-validator")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
		defer cancel()
		res := b.call(ctx, "json-user-validator", map[string]any{"username": "bob", "age": 7})
		if res.IsError || !strings.Contains(text(res), "validated: bob, age=7") {
			t.Errorf("the agent's call = %q (isError %v), want the runtime's tool's answer", text(res), res.IsError)
		}
	})
}

// A page runtime that installs its own navigator.modelContext, as
// @mcp-b/global 1.2 does where the browser has none (Chromium 156), keeps
// its tools in its own registry: the browser's own agent sees none of them
// (CDP's WebMCP.invokeTool: "Tool not found"), and neither does an agent
// of the bridge, in both modes; the tool the page registers with
// document.modelContext reaches both. Issue SEC2 item 9.
func TestPageRuntimeOwnRegistryIsNotTheBrowsers(t *testing.T) {
	url := servePageRuntime(t) + "/mcpb-1.html"
	ref := plainBrowser(t, native, url)
	if got := eval[string](t, ref, `runtimeLog.join(',')`); got != "own polyfill" {
		t.Fatalf("without the extension the runtime says %q, want its own polyfill", got)
	}
	cdpt, err := newCDPTools(ref)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	if _, err := cdpt.invoke(ctx, "with_the_browser", []byte(`{}`)); err != nil {
		t.Fatalf("the browser's own agent: %v", err)
	}
	if _, err := cdpt.invoke(ctx, "runtime_only", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("the browser's own agent ran runtime_only (err %v), want Tool not found", err)
	}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(url)
		if got := eval[string](t, tab, `runtimeLog.join(',')`); got != "own polyfill" {
			t.Fatalf("with the extension the runtime says %q, want its own polyfill, as without", got)
		}
		tools := b.waitTools("with_the_browser", func(m map[string]*mcp.Tool) bool { return m["with_the_browser"] != nil })
		if tools["runtime_only"] != nil {
			t.Errorf("the agent is offered runtime_only, which the browser's own agent does not see")
		}
		if res := b.call(ctx, "with_the_browser", map[string]any{}); res.IsError || text(res) != "ran with the browser" {
			t.Errorf("with_the_browser = %q (isError %v)", text(res), res.IsError)
		}
		// Looked at again after the page's load: still not offered.
		waitPage(t, tab, `document.readyState === 'complete'`)
		if res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: "runtime_only", Arguments: map[string]any{}}); err == nil && !res.IsError {
			t.Errorf("runtime_only ran through the bridge: %q", text(res))
		}
		if got := eval[string](t, tab, `ran.join(',')`); got != "with_the_browser" {
			t.Errorf("the page ran %q, want with_the_browser alone", got)
		}
	})
}
