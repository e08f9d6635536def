package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/demo"
	"github.com/webmcp-bridge/bridge/protocol"
)

// The two ways a page gets document.modelContext.
type mode string

const (
	native   mode = "native"   // the browser's own, --enable-features=WebMCP
	polyfill mode = "polyfill" // the extension's polyfill
)

var modes = []mode{native, polyfill}

var (
	// Set by TestMain.
	chromiumPath string // empty: no browser on this machine
	installDir   string // PREFIX that install.sh installed into
	profileDir   string // a --user-data-dir prepared by install.sh
	repoRoot     string
	// demo app servers: allowed origins (localhost and 127.0.0.1 on one
	// port) and a loopback origin that is not on the default allow list.
	demoPort      int
	blockedOrigin string

	verbose = flag.Bool("e2e.v", false, "show browser, host and shim logs")
)

func TestMain(m *testing.M) {
	flag.Parse()
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		os.Exit(1)
	}
	if code >= 0 {
		os.Exit(code)
	}
	code = m.Run()
	os.RemoveAll(installDir)
	os.Exit(code)
}

// setup returns -1 to go on with the tests.
func setup() (int, error) {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Dir(filepath.Dir(file))
	chromiumPath = findChromium()
	if chromiumPath == "" {
		if os.Getenv("CI") != "" {
			return 1, fmt.Errorf("no Chromium found and CI is set: install it (apt-get install -y chromium) or set WEBMCP_CHROMIUM")
		}
		// The tests skip, each with a message (go test -v shows it).
		return -1, nil
	}
	var err error
	installDir, err = os.MkdirTemp("", "webmcp-e2e-")
	if err != nil {
		return 1, err
	}
	profileDir = filepath.Join(installDir, "profile-template")
	cmd := exec.Command(filepath.Join(repoRoot, "install.sh"), "--prefix", installDir, "--no-browsers", "--user-data-dir", profileDir)
	cmd.Env = append(os.Environ(), "HOME="+installDir)
	// install.sh builds under that HOME: keep the user's Go build and module
	// caches, or each run builds from nothing and fetches every module.
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		if dirs := strings.Split(strings.TrimSpace(string(out)), "\n"); len(dirs) == 2 {
			cmd.Env = append(cmd.Env, "GOCACHE="+dirs[0], "GOMODCACHE="+dirs[1])
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("install.sh: %v\n%s", err, out)
	}

	// Serve the demo app on one port for every origin: localhost and
	// 127.0.0.1 (allowed by default) and 127.0.0.2 (not allowed).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1, err
	}
	demoPort = ln.Addr().(*net.TCPAddr).Port
	go http.Serve(ln, demo.Handler())
	ln2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.2:%d", demoPort))
	if err != nil {
		return 1, fmt.Errorf("listen on 127.0.0.2 (a loopback address outside the default allow list): %w", err)
	}
	go http.Serve(ln2, demo.Handler())
	blockedOrigin = fmt.Sprintf("http://127.0.0.2:%d", demoPort)
	if err := approvedBefore(blockedOrigin); err != nil {
		return 1, err
	}
	return -1, nil
}

// approvedBefore lets the template profile's browser remember that the
// user once granted the extension origin in chrome://extensions (Site
// access: on specific sites, then back to all its sites), so that the
// extension's chrome.permissions.request for it, on a click in the panel
// or the consent window, resolves without the browser's prompt, which
// headless Chromium shows but never answers. The origin stays off the
// allow list (it is not an active grant) until a test allows it the
// user's way.
func approvedBefore(origin string) error {
	ext := filepath.Join(installDir, "share", "webmcp-bridge", "extension")
	// The host this browser starts keeps its socket out of the user's own places.
	rd, err := os.MkdirTemp("", "wmrt")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rd)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(profileDir),
		chromedp.Env("WEBMCP_RUNTIME_DIR="+filepath.Join(rd, "run")),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", ext),
		chromedp.Flag("disable-extensions-except", ext),
		chromedp.Flag("disable-component-update", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := context.WithTimeout(allocCtx, time.Minute)
	defer cancel()
	browser, _ := chromedp.NewContext(ctx)
	defer chromedp.Cancel(browser)
	if err := chromedp.Do(browser, chromedp.Navigate("chrome://extensions/?id="+protocol.ExtensionID)); err != nil {
		return fmt.Errorf("open chrome://extensions in the template profile: %w", err)
	}
	script := fmt.Sprintf(`(async () => {
		const id = %q, dp = chrome.developerPrivate;
		await dp.updateExtensionConfiguration({extensionId: id, hostAccess: "ON_SPECIFIC_SITES"});
		await dp.addHostPermission(id, %q);
		await dp.updateExtensionConfiguration({extensionId: id, hostAccess: "ON_ALL_SITES"});
		const info = await dp.getExtensionInfo(id);
		return info.permissions.runtimeHostPermissions.hostAccess;
	})()`, protocol.ExtensionID, origin+"/*")
	got, err := chromedp.Run(browser, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil || got != "ON_ALL_SITES" {
		return fmt.Errorf("let the template profile remember a grant of %s in chrome://extensions: %q %v", origin, got, err)
	}
	// The extension saw its loopback grants go and come back: the sites
	// list answers once it has registered its content scripts again, which
	// the profile keeps for the tests' browsers.
	page, cancelPage, err := openExtPage(browser, "ui/options.html")
	defer cancelPage()
	if err != nil {
		return err
	}
	check := `chrome.runtime.sendMessage({type: "sites/list"})
		.then(() => chrome.scripting.getRegisteredContentScripts())
		.then((s) => JSON.stringify(s.map((c) => c.id + " " + c.matches.join(" "))))`
	scripts, err := chromedp.Run(page, chromedp.Evaluate[string](check, chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(scripts, "webmcp-main http://127.0.0.1/*") {
		return fmt.Errorf("the extension's content scripts in the template profile: %s %v", scripts, err)
	}
	// The profile's random instance id (worker.js INSTANCE_KEY), which
	// tells a shim one profile's hosts from another's, is made at each
	// copy's first start, as in any profile of the user's: two browsers of
	// a test (startAnother) are two profiles to their shim.
	forget := `chrome.storage.local.remove("instance").then(() => chrome.storage.local.get("instance")).then((v) => JSON.stringify(v))`
	if left, err := chromedp.Run(page, chromedp.Evaluate[string](forget, chromedp.EvalAwaitPromise)); err != nil || left != "{}" {
		return fmt.Errorf("forget the template profile's instance id: %s %v", left, err)
	}
	return nil
}

func findChromium() string {
	if p := os.Getenv("WEBMCP_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// demoURL is the demo app on an allowed origin; host is "localhost" or
// "127.0.0.1".
func demoURL(host, path string) string {
	return fmt.Sprintf("http://%s:%d%s", host, demoPort, path)
}

// forEachMode runs f as a subtest for each WebMCP mode.
func forEachMode(t *testing.T, f func(t *testing.T, m mode)) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) { f(t, m) })
	}
}

// bridge is one browser with the extension, its host, and a shim driven by
// an MCP client.
type bridge struct {
	t          testing.TB
	mode       mode
	browser    context.Context // chromedp context of the first tab
	runtimeDir string
	userData   string // the browser's --user-data-dir
	client     *mcp.ClientSession
	changed    chan struct{} // tools/list_changed
	updated    chan string   // resources/updated URIs
	logs       *logBuffer
	shims      []*exec.Cmd     // the webmcp-shim processes connectShim started, oldest first
	views      context.Context // an extension page that sees the extension's windows (see extViews)
	reference  context.Context // a Chromium without the extension, where a test asks the browser's own agent (browserFormAnswer)
}

// start starts Chromium in mode m with a fresh profile prepared by
// install.sh, and a webmcp-shim connected to it through an MCP client.
// startOption changes how start sets up a bridge.
type startOption func(t testing.TB, ext string) string

// withIsolatedPrefix runs js in the extension's isolated world of every
// frame before the extension's own script there: start loads a copy of
// the extension whose generated/isolated-world.js begins with it (same key, same
// extension ID).
func withIsolatedPrefix(js string) startOption {
	return func(t testing.TB, ext string) string {
		dir := filepath.Join(t.TempDir(), "extension")
		copyDir(t, ext, dir)
		p := filepath.Join(dir, "generated", "isolated-world.js")
		own, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append([]byte(js+"\n"), own...), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
}

func start(t testing.TB, m mode, options ...startOption) *bridge {
	t.Helper()
	if chromiumPath == "" {
		t.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium); CI fails instead of skipping")
	}
	b := &bridge{t: t, mode: m, changed: make(chan struct{}, 1), updated: make(chan string, 16), logs: &logBuffer{}}
	t.Cleanup(func() {
		if t.Failed() || *verbose {
			t.Logf("logs:\n%s", b.logs.String())
		}
	})

	// A short runtime dir: Unix socket paths are limited to ~100 bytes.
	rd, err := os.MkdirTemp("", "wmrt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rd) })
	b.runtimeDir = filepath.Join(rd, "run")

	b.launch("chromium: ", options...)
	b.client = b.connectShim()
	return b
}

// startAnother starts a second browser for b's agent: another Chromium, in
// mode m with its own copy of the prepared profile, whose extension starts
// its own webmcp-host in b's runtime directory, as a second browser (or
// profile) of the user's does. Every shim of b (b.client, connectShim)
// sees both browsers. The returned bridge drives the new browser (browser,
// open, userData); it shares b's runtime directory, shim client, change
// notifications and logs (the new browser's lines prefixed "chromium 2: ").
func (b *bridge) startAnother(m mode, options ...startOption) *bridge {
	b.t.Helper()
	other := *b
	other.mode, other.views, other.reference, other.shims = m, nil, nil, nil
	other.launch("chromium 2: ", options...)
	return &other
}

// launch starts Chromium in b.mode with a fresh copy of the profile that
// install.sh prepared, its host's socket in b.runtimeDir, and waits until
// its extension has started that host.
func (b *bridge) launch(logPrefix string, options ...startOption) {
	t := b.t
	t.Helper()
	userData := t.TempDir()
	copyDir(t, profileDir, userData)
	b.userData = userData

	ext := filepath.Join(installDir, "share", "webmcp-bridge", "extension")
	for _, o := range options {
		ext = o(t, ext)
	}
	features := "NetworkService,NetworkServiceInProcess"
	if b.mode == native {
		features += ",WebMCP"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(userData),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", ext),
		chromedp.Flag("disable-extensions-except", ext),
		chromedp.Flag("enable-features", features),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Env("WEBMCP_RUNTIME_DIR="+b.runtimeDir),
		chromedp.CombinedOutput(b.logs.prefixed(logPrefix)),
	)
	// The hosts already there (another browser's): this browser's is new.
	before, _ := filepath.Glob(filepath.Join(b.runtimeDir, "host-*"))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	b.browser, _ = chromedp.NewContext(allocCtx)
	if err := chromedp.Do(b.browser, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	browser := b.browser
	t.Cleanup(func() { chromedp.Cancel(browser) })
	b.keepWorkerConsole()
	// The worker starts its host once it has registered the content
	// scripts for the allowed sites (worker/sites.js): a page opened
	// before that gets none. A test whose browser never starts a host
	// (a broken install) goes on without one after the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if err := awaitHostSocket(ctx, b.runtimeDir, before...); err != nil {
		t.Logf("the extension started no host: %v", err)
	}
	cancel()
}

// keepWorkerConsole copies the extension's service worker console (its
// warnings and uncaught errors) into the logs that a failing test prints.
// The worker's own restarts (stopWorker) end the copy; it is a diagnostic
// only, so a worker that is not found is no failure.
func (b *bridge) keepWorkerConsole() {
	ctx, cancel := context.WithTimeout(b.browser, 20*time.Second)
	defer cancel()
	var worker target.ID
	awaitTargets(ctx, func(infos []*target.Info) bool {
		for _, in := range infos {
			if in.Type == "service_worker" && strings.HasPrefix(in.URL, "chrome-extension://"+protocol.ExtensionID+"/") {
				worker = in.TargetID
				return true
			}
		}
		return false
	})
	if worker == "" {
		return
	}
	wctx, stop := chromedp.NewContext(b.browser, chromedp.WithTargetID(worker), chromedp.WithDetachOnCancel())
	b.t.Cleanup(stop)
	log := b.logs.prefixed("worker: ")
	chromedp.Listen(wctx, func(ev any) {
		switch e := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == cdpruntime.ConsoleAPICalledTypeWarning || e.Type == cdpruntime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range e.Args {
					if a.Value != nil {
						parts = append(parts, string(a.Value))
					} else {
						parts = append(parts, a.Description)
					}
				}
				fmt.Fprintf(log, "%s %s\n", e.Type, strings.Join(parts, " "))
			}
		case *cdpruntime.EventExceptionThrown:
			d := e.ExceptionDetails
			what := d.Text
			if d.Exception != nil {
				what += " " + d.Exception.Description
			}
			fmt.Fprintf(log, "uncaught %s (%s:%d)\n", what, d.URL, d.LineNumber+1)
		}
	})
	if err := chromedp.Do(wctx); err != nil {
		fmt.Fprintf(log, "could not attach to the worker for its console: %v\n", err)
	}
}

// connectShim starts webmcp-shim as the agent would and connects an MCP
// client to it.
func (b *bridge) connectShim(args ...string) *mcp.ClientSession {
	t := b.t
	t.Helper()
	cmd := exec.Command(filepath.Join(installDir, "bin", "webmcp-shim"), args...)
	// XDG_CACHE_HOME: big results go to files there, not to the user's cache.
	cmd.Env = append(os.Environ(), "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "XDG_CACHE_HOME="+filepath.Join(filepath.Dir(b.runtimeDir), "cache"))
	cmd.Stderr = b.logs.prefixed("shim: ")
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case b.changed <- struct{}{}:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case b.updated <- req.Params.URI:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to webmcp-shim: %v", err)
	}
	b.shims = append(b.shims, cmd)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// shimCLI runs a webmcp-shim subcommand against this bridge's browser.
func (b *bridge) shimCLI(args ...string) (stdout string, err error) {
	cmd := exec.Command(filepath.Join(installDir, "bin", "webmcp-shim"), args...)
	// HOME: the user's own browser manifests are none of the test's business.
	cmd.Env = append(os.Environ(), "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "HOME="+installDir, "XDG_CONFIG_HOME=")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = b.logs.prefixed("shim " + args[0] + ": ")
	err = cmd.Run()
	return out.String(), err
}

// open opens url in a new tab and returns the tab's context; the tab closes
// at the end of the test, or earlier by calling close.
func (b *bridge) open(url string) (tab context.Context, close func()) {
	b.t.Helper()
	tab, cancel := chromedp.NewContext(b.browser)
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	var once sync.Once
	close = func() { once.Do(cancel) }
	b.t.Cleanup(close)
	return tab, close
}

// waitTools lists tools until ok accepts them, waking on list_changed
// notifications; it fails the test when that does not happen within the
// deadline.
func (b *bridge) waitTools(what string, ok func(tools map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var last map[string]*mcp.Tool
	for {
		res, err := b.client.ListTools(ctx, nil)
		if err != nil {
			b.t.Fatalf("waiting for %s: list tools: %v", what, err)
		}
		last = map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			last[tool.Name] = tool
		}
		if ok(last) {
			return last
		}
		select {
		case <-b.changed:
		case <-ctx.Done():
			b.t.Fatalf("waiting for %s: gave up; tools are %v", what, sortedKeys(last))
		}
	}
}

// waitTool waits until a tool named name is listed.
func (b *bridge) waitTool(name string) *mcp.Tool {
	b.t.Helper()
	return b.waitTools("tool "+name, func(m map[string]*mcp.Tool) bool { return m[name] != nil })[name]
}

// call calls a tool and returns its result.
func (b *bridge) call(ctx context.Context, name string, args any) *mcp.CallToolResult {
	b.t.Helper()
	res, err := b.client.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text is the text of a result's content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// eval evaluates a JavaScript expression in the page's main world, awaiting
// a promise, and decodes the value into T.
func eval[T any](t testing.TB, tab context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitPage waits until the page-side expression cond (a JavaScript boolean
// expression) is true, re-checking it on every DOM change; no polling.
func waitPage(t testing.TB, tab context.Context, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](waitScript(cond), chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("waiting in the page for %s: %v", cond, err)
	}
}

// waitScript is a page-side promise that resolves once the JavaScript
// boolean expression cond is true, re-checking it on every DOM change.
func waitScript(cond string) string {
	return `new Promise(resolve => {
		const ok = () => { try { return !!(` + cond + `); } catch { return false; } };
		if (ok()) return resolve(true);
		const mo = new MutationObserver(() => { if (ok()) { mo.disconnect(); resolve(true); } });
		mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
	})`
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// logBuffer collects the logs of the processes of one test, shown when it
// fails.
type logBuffer struct {
	mu    sync.Mutex
	buf   strings.Builder
	wrote chan struct{} // closed at the next write (await)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// mark is where the logs are now: a from for await.
func (l *logBuffer) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}

func (l *logBuffer) prefixed(prefix string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, line := range strings.SplitAfter(string(p), "\n") {
			if line != "" {
				l.buf.WriteString(prefix + line)
			}
		}
		if l.wrote != nil {
			close(l.wrote)
			l.wrote = nil
		}
		return len(p), nil
	})
}

// await waits until the logs after their first from bytes (a len of
// String taken before) hold a line that starts with prefix and contains
// each of parts, waking on each write, and returns that line.
func (l *logBuffer) await(ctx context.Context, from int, prefix string, parts ...string) (string, error) {
	for {
		l.mu.Lock()
		for line := range strings.Lines(l.buf.String()[from:]) {
			if strings.HasPrefix(line, prefix) && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
				l.mu.Unlock()
				return line, nil
			}
		}
		if l.wrote == nil {
			l.wrote = make(chan struct{})
		}
		wrote := l.wrote
		l.mu.Unlock()
		select {
		case <-wrote:
		case <-ctx.Done():
			return "", fmt.Errorf("no log line %q with %q: %w", prefix, parts, ctx.Err())
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
