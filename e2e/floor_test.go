package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The floor path (issue 23): the bridge's processes and hops — MCP client
// → stdio → a server → Unix socket → a native messaging host that the
// browser starts → extension service worker → runtime Port → content
// script → MessageChannel → main world, and back — carrying an echo with
// none of the bridge's logic. Its pieces are the test's own: a throwaway
// extension written into a temp folder (its own key, so its own ID, and its
// own native messaging host name) and e2e/testdata/floorecho, built here.
// Nothing of it ships, and the product has no hook for it.

// floorHostName is the floor's native messaging host.
const floorHostName = "dev.webmcp.floor"

// The floor extension's worker: the native port in, the page's Port out.
const floorWorkerJS = `const host = chrome.runtime.connectNative('` + floorHostName + `');
let page = null;
chrome.runtime.onConnect.addListener((port) => {
  page = port;
  port.onMessage.addListener((m) => host.postMessage(m));
  port.onDisconnect.addListener(() => { if (page === port) page = null; });
});
host.onMessage.addListener((m) => {
  if (m.to === 'worker') host.postMessage(m);
  else if (page) page.postMessage(m);
  else host.postMessage({ id: m.id, error: 'no page has connected yet' });
});
`

// The content script (isolated world): the worker's Port to a
// MessageChannel whose other end it hands to the main world.
const floorContentJS = `const port = chrome.runtime.connect({ name: 'floor' });
const ch = new MessageChannel();
let handed = false;
addEventListener('message', (e) => {
  if (e.source === window && e.data === 'webmcp-floor-main' && !handed) {
    handed = true;
    postMessage('webmcp-floor-port', '*', [ch.port2]);
  }
});
postMessage('webmcp-floor-isolated', '*');
port.onMessage.addListener((m) => { if (m.to === 'content') port.postMessage(m); else ch.port1.postMessage(m); });
ch.port1.onmessage = (e) => port.postMessage(e.data);
`

// The main world's end: every message goes back as it came.
const floorMainJS = `addEventListener('message', (e) => {
  if (e.source !== window) return;
  if (e.data === 'webmcp-floor-isolated') postMessage('webmcp-floor-main', '*');
  else if (e.data === 'webmcp-floor-port' && e.ports[0]) {
    const p = e.ports[0];
    p.onmessage = (ev) => p.postMessage(ev.data);
  }
});
postMessage('webmcp-floor-main', '*');
`

var floorBin struct {
	once sync.Once
	path string
	err  error
}

// floorEchoBinary builds e2e/testdata/floorecho once per test binary.
func floorEchoBinary(t testing.TB) string {
	t.Helper()
	floorBin.once.Do(func() {
		floorBin.path = filepath.Join(installDir, "floorecho")
		cmd := exec.Command("go", "build", "-o", floorBin.path, "./e2e/testdata/floorecho")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			floorBin.err = fmt.Errorf("build the floor's echo program: %v\n%s", err, out)
		}
	})
	if floorBin.err != nil {
		t.Fatal(floorBin.err)
	}
	return floorBin.path
}

// writeFloorExtension writes the floor's extension into dir and returns its
// ID, which follows from the fresh key in its manifest.
func writeFloorExtension(t testing.TB, dir string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	var id strings.Builder
	for _, c := range sum[:16] {
		id.WriteByte('a' + c>>4)
		id.WriteByte('a' + c&15)
	}
	manifest, _ := json.MarshalIndent(map[string]any{
		"manifest_version": 3,
		"name":             "webmcp floor (benchmark)",
		"version":          "1",
		"key":              base64.StdEncoding.EncodeToString(der),
		"permissions":      []string{"nativeMessaging"},
		"background":       map[string]any{"service_worker": "worker.js"},
		"content_scripts": []map[string]any{
			{"matches": []string{"<all_urls>"}, "js": []string{"content.js"}, "run_at": "document_start"},
			{"matches": []string{"<all_urls>"}, "js": []string{"main.js"}, "run_at": "document_start", "world": "MAIN"},
		},
	}, "", "  ")
	for name, body := range map[string]string{
		"manifest.json": string(manifest), "worker.js": floorWorkerJS, "content.js": floorContentJS, "main.js": floorMainJS,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return id.String()
}

// floor is one browser with the floor extension, its host, and the floor's
// MCP server driven by an MCP client; conn is the test's own connection to
// the host's socket, for the shorter echoes.
type floor struct {
	t       testing.TB
	browser context.Context
	client  *mcp.ClientSession
	server  *exec.Cmd
	conn    *floorConn
	logs    *logBuffer
}

// startFloor starts the floor path in a headless Chromium of its own and
// returns it once an echo comes back from the main world.
func startFloor(t testing.TB) *floor {
	t.Helper()
	if chromiumPath == "" {
		t.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium); CI fails instead of skipping")
	}
	f := &floor{t: t, logs: &logBuffer{}}
	t.Cleanup(func() {
		if t.Failed() || *verbose {
			t.Logf("floor logs:\n%s", f.logs.String())
		}
	})
	bin := floorEchoBinary(t)
	ext := t.TempDir()
	id := writeFloorExtension(t, ext)
	userData := t.TempDir()
	nmDir := filepath.Join(userData, "NativeMessagingHosts")
	nm, _ := json.Marshal(map[string]any{
		"name": floorHostName, "description": "the floor path's echo host (benchmark)", "path": bin,
		"type": "stdio", "allowed_origins": []string{"chrome-extension://" + id + "/"},
	})
	if err := os.MkdirAll(nmDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nmDir, floorHostName+".json"), nm, 0o644); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "wmfl") // short: Unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	socket := filepath.Join(sockDir, "s")

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(userData),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", ext),
		chromedp.Flag("disable-extensions-except", ext),
		chromedp.Flag("enable-features", "NetworkService,NetworkServiceInProcess"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Env("WEBMCP_FLOOR_SOCKET="+socket),
		chromedp.CombinedOutput(f.logs.prefixed("chromium: ")),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	f.browser, _ = chromedp.NewContext(allocCtx)
	if err := chromedp.Do(f.browser, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium for the floor path: %v", err)
	}
	t.Cleanup(func() { chromedp.Cancel(f.browser) })
	tab, cancelTab := chromedp.NewContext(f.browser)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab, chromedp.Navigate(demoURL("localhost", "/"))); err != nil {
		t.Fatalf("open the floor's page: %v", err)
	}

	// The worker starts the host, which listens: wait for its socket, then
	// for an echo from the main world (the page's Port may come later).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang guard
	defer cancel()
	var c net.Conn
	for {
		if c, err = net.Dial("unix", socket); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the floor's native host never listened on its socket (%v); logs:\n%s", err, f.logs.String())
		case <-time.After(20 * time.Millisecond): // the socket is a file: nothing to await
		}
	}
	f.conn = newFloorConn(c)
	t.Cleanup(func() { c.Close() })
	for {
		err := f.conn.echo("main")
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no echo from the floor's main world: %v; logs:\n%s", err, f.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}

	f.server = exec.Command(bin, "server", socket)
	f.server.Stderr = f.logs.prefixed("floor server: ")
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-floor", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: f.server}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to the floor's MCP server: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	f.client = cs
	return f
}

// call is one echo through the whole floor path ("echo") or through stdio
// alone ("direct").
func (f *floor) call(ctx context.Context, tool string) error {
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "x"}})
	if err != nil {
		return fmt.Errorf("floor %s: %w", tool, err)
	}
	if res.IsError || text(res) != "x" {
		return fmt.Errorf("floor %s answered %.200q (error %v), want \"x\"", tool, text(res), res.IsError)
	}
	return nil
}

// pids are the floor's processes, for CPU accounting: the browser (its
// helpers and the host are its descendants) and the MCP server.
func (f *floor) pids() []int {
	return []int{chromedp.FromContext(f.browser).Browser.Process().Pid, f.server.Process.Pid}
}

// floorConn is the test's own line connection to the floor's host: one
// echo at a time, turned back by the hop it names.
type floorConn struct {
	c  net.Conn
	r  *bufio.Reader
	id int64
}

func newFloorConn(c net.Conn) *floorConn { return &floorConn{c: c, r: bufio.NewReader(c)} }

// echo sends "x" to the hop named to ("host", "worker", "content", "main")
// and reads the answer.
func (f *floorConn) echo(to string) error {
	f.id++
	if _, err := fmt.Fprintf(f.c, `{"id":%d,"to":%q,"text":"x"}`+"\n", f.id, to); err != nil {
		return err
	}
	line, err := f.r.ReadBytes('\n')
	if err != nil {
		return err
	}
	var m struct {
		ID    int64
		Text  string
		Error string
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("the floor's host answered %q: %v", line, err)
	}
	if m.Error != "" {
		return errors.New(m.Error)
	}
	if m.ID != f.id || m.Text != "x" {
		return fmt.Errorf("the floor's host answered %q to echo %d", line, f.id)
	}
	return nil
}

// treeCPU is the CPU time (user and system, seconds) used so far by the
// processes roots and all their descendants.
func treeCPU(roots ...int) float64 {
	total := 0.0
	for _, c := range treeCPUByKind(roots...) {
		total += c
	}
	return total
}

// treeCPUByKind is treeCPU by kind of process (processKind; another
// program by its name).
func treeCPUByKind(roots ...int) map[string]float64 {
	type proc struct {
		ppid int
		cpu  float64
	}
	procs := map[int]proc{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		ppid, cpu, ok := procStat(d)
		if !ok {
			continue
		}
		procs[pid] = proc{ppid, cpu}
	}
	in := map[int]bool{}
	for _, r := range roots {
		in[r] = true
	}
	out := map[string]float64{}
	for pid, p := range procs {
		for q, depth := pid, 0; q > 1 && depth < 64; depth++ {
			if in[q] {
				out[kindOf(pid)] += p.cpu
				break
			}
			q = procs[q].ppid
		}
	}
	return out
}

// kindOf is processKind of a running process, or its program's name.
func kindOf(pid int) string {
	args := procArgs(filepath.Join("/proc", strconv.Itoa(pid)))
	if len(args) == 0 {
		return "other"
	}
	if k := processKind(args); k != "" {
		return k
	}
	return filepath.Base(args[0])
}

// bridgePIDs are a bridge's processes, for CPU accounting: its browser
// (the host is a descendant) and its shims.
func (b *bridge) pids() []int {
	pids := []int{chromedp.FromContext(b.browser).Browser.Process().Pid}
	for _, s := range b.shims {
		pids = append(pids, s.Process.Pid)
	}
	return pids
}
