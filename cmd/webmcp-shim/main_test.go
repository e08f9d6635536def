// The integration tests of webmcp-shim: the real webmcp-host binary, with
// internal/fakeext playing the browser extension on its stdio (real
// native-messaging frames), and the real webmcp-shim binary, driven by the
// MCP SDK's client over CommandTransport or run as a CLI.
package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// The binaries under test, built once by TestMain.
var shimBin, hostBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "webmcp-shim-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	args := []string{"build"}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "-o", dir+string(filepath.Separator),
		"github.com/webmcp-bridge/bridge/cmd/webmcp-shim",
		"github.com/webmcp-bridge/bridge/cmd/webmcp-host")
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binaries under test: %v\n", err)
		return 1
	}
	shimBin = filepath.Join(dir, "webmcp-shim")
	hostBin = filepath.Join(dir, "webmcp-host")
	return m.Run()
}

// childEnv is the environment of a child process with runtime directory dir.
func childEnv(dir string) []string {
	return append(os.Environ(), webmcp.RuntimeDirEnv+"="+dir, goRace())
}

// goRace keeps the GORACE options of the test and shortens the second that
// a -race binary sleeps at exit (reports are written when a race happens,
// not at exit), so that the many CLI runs stay quick.
func goRace() string {
	return strings.TrimSpace("GORACE=" + os.Getenv("GORACE") + " atexit_sleep_ms=20")
}

// testTimeout bounds each wait of a test; nothing should take this long.
const testTimeout = 20 * time.Second

func testContext(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// runtimeDir is a private runtime directory for one test, short enough for
// socket paths.
func runtimeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// testLog copies a child's stderr into the test log, line by line, until the
// test ends; a data race reported by a -race child fails the test.
type testLog struct {
	t      testing.TB
	prefix string
	mu     sync.Mutex
	buf    []byte
	done   bool
}

func newTestLog(t testing.TB, prefix string) *testLog {
	l := &testLog{t: t, prefix: prefix}
	t.Cleanup(func() {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	})
	return l
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		l.buf = l.buf[i+1:]
		l.t.Logf("%s: %s", l.prefix, line)
		if strings.Contains(line, "WARNING: DATA RACE") {
			l.t.Errorf("%s reported a data race", l.prefix)
		}
	}
	return len(p), nil
}

// page plays the pages of a fake browser: it answers calls by tool name and
// requests by method, and records them.
type page struct {
	mu       sync.Mutex
	handlers map[string]fakeext.Handler
	methods  map[string]fakeext.Handler
	calls    []*webmcp.Message
	requests []*webmcp.Message
}

func newPage() *page {
	p := &page{handlers: map[string]fakeext.Handler{}, methods: map[string]fakeext.Handler{}}
	p.handle("echo", echoHandler)
	return p
}

// handleRequest sets the handler of the requests with method.
func (p *page) handleRequest(method string, h fakeext.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.methods[method] = h
}

func (p *page) serveRequest(ctx context.Context, req *webmcp.Message) (json.RawMessage, *webmcp.Error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	h := p.methods[req.Method]
	p.mu.Unlock()
	if h == nil {
		return nil, webmcp.Errorf(webmcp.CodeBadRequest, "the fake extension does not answer %s requests", req.Method)
	}
	return h(ctx, req)
}

// Requests returns the requests the extension received so far.
func (p *page) Requests() []*webmcp.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*webmcp.Message(nil), p.requests...)
}

// handle sets the handler of the tools named name (in any tab).
func (p *page) handle(name string, h fakeext.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handlers[name] = h
}

func (p *page) serve(ctx context.Context, call *webmcp.Message) (json.RawMessage, *webmcp.Error) {
	p.mu.Lock()
	p.calls = append(p.calls, call)
	h := p.handlers[call.Name]
	p.mu.Unlock()
	if h == nil {
		return nil, webmcp.Errorf(webmcp.CodeNotFound, "no tool %q in tab %d", call.Name, call.TabID)
	}
	return h(ctx, call)
}

// Calls returns the calls the page received so far.
func (p *page) Calls() []*webmcp.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*webmcp.Message(nil), p.calls...)
}

// echoHandler answers with where the call went and its arguments.
func echoHandler(_ context.Context, call *webmcp.Message) (json.RawMessage, *webmcp.Error) {
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("null")
	}
	out := fmt.Sprintf(`{"tab":%d,"frame":%d,"name":%q,"args":%s}`, call.TabID, call.FrameID, call.Name, args)
	return json.RawMessage(out), nil
}

// startHost runs a webmcp-host in dir with a fake extension that has said
// hello and whose pages are p.
func startHost(t testing.TB, dir string, p *page) *fakeext.Ext {
	t.Helper()
	ctx := testContext(t)
	ext, err := fakeext.Start(ctx, fakeext.Options{
		HostBinary:     hostBin,
		RuntimeDir:     dir,
		Stderr:         newTestLog(t, "webmcp-host"),
		Handler:        p.serve,
		RequestHandler: p.serveRequest,
		Env:            []string{goRace()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ext.Close() })
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	return ext
}

// webmcpExt is a fake extension and the runtime directory of its host.
type webmcpExt struct {
	*fakeext.Ext
	dir string
}

// tab is an allowed tab on localhost:8080.
func tab(id int, title string) webmcp.Tab {
	return webmcp.Tab{
		ID: id, WindowID: 1, Active: id == 12, Title: title,
		URL:    fmt.Sprintf("http://localhost:8080/%d", id),
		Origin: "http://localhost:8080", Allowed: true,
	}
}

// tool is a tool of tab's top frame.
func tool(tabID int, name string) webmcp.Tool {
	return webmcp.Tool{TabID: tabID, Origin: "http://localhost:8080", Name: name, Description: "Does " + name + "."}
}

// shimClient is a webmcp-shim process driven by an MCP client.
type shimClient struct {
	t       testing.TB
	cs      *mcp.ClientSession
	changed chan struct{} // one value per notifications/tools/list_changed
	updated chan string   // the URI of each notifications/resources/updated
}

// startShim starts webmcp-shim with args, its runtime directory dir, and
// connects an MCP client to it.
func startShim(t testing.TB, dir string, args ...string) *shimClient {
	t.Helper()
	ctx := testContext(t)
	sc := &shimClient{t: t, changed: make(chan struct{}, 100), updated: make(chan string, 100)}
	client := mcp.NewClient(&mcp.Implementation{Name: "shim-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case sc.changed <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case sc.updated <- req.Params.URI:
			default:
			}
		},
	})
	cmd := exec.Command(shimBin, args...)
	cmd.Env = childEnv(dir)
	cmd.Stderr = newTestLog(t, "webmcp-shim")
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to webmcp-shim: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	sc.cs = cs
	return sc
}

// drain forgets the list_changed notifications received so far.
func (sc *shimClient) drain() {
	for {
		select {
		case <-sc.changed:
		default:
			return
		}
	}
}

// tools lists the shim's tools by name.
func (sc *shimClient) tools(ctx context.Context) map[string]*mcp.Tool {
	sc.t.Helper()
	res, err := sc.cs.ListTools(ctx, nil)
	if err != nil {
		sc.t.Fatalf("tools/list: %v", err)
	}
	m := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		m[tl.Name] = tl
	}
	return m
}

// awaitChange waits for a list_changed notification after which the tool
// list satisfies ok, and returns that list.
func (sc *shimClient) awaitChange(ctx context.Context, what string, ok func(map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	sc.t.Helper()
	var last map[string]*mcp.Tool
	for {
		select {
		case <-sc.changed:
		case <-ctx.Done():
			sc.t.Fatalf("no list_changed after which %s; last tools: %v", what, names(last))
		}
		last = sc.tools(ctx)
		if ok(last) {
			return last
		}
	}
}

// names are the tools' names, sorted.
func names(m map[string]*mcp.Tool) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func has(names ...string) func(map[string]*mcp.Tool) bool {
	return func(m map[string]*mcp.Tool) bool {
		for _, n := range names {
			if m[n] == nil {
				return false
			}
		}
		return true
	}
}

func lacks(names ...string) func(map[string]*mcp.Tool) bool {
	return func(m map[string]*mcp.Tool) bool {
		for _, n := range names {
			if m[n] != nil {
				return false
			}
		}
		return true
	}
}

// call calls a tool and fails the test on a protocol error.
func (sc *shimClient) call(ctx context.Context, name string, args any) *mcp.CallToolResult {
	sc.t.Helper()
	res, err := sc.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		sc.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text joins a result's text contents.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structuredContent.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// echoed is what echoHandler answers.
type echoed struct {
	Tab   int            `json:"tab"`
	Frame int            `json:"frame"`
	Name  string         `json:"name"`
	Args  map[string]any `json:"args"`
}
