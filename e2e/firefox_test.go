package e2e

// The bridge in real Firefox (issue 25): Firefox ESR headless with its
// WebDriver BiDi remote agent, the installed Firefox add-on
// (share/webmcp-bridge/firefox-extension) loaded as a temporary add-on
// through webExtension.install, Firefox's native-messaging manifest in a
// HOME of the test's own, and webmcp-shim driven by an MCP client. Without
// Firefox (WEBMCP_FIREFOX, or firefox-esr or firefox on PATH) the tests
// skip, except in CI (CI set), where they fail: .ci/run installs
// firefox-esr.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/bidi"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/manifest"
)

func findFirefox() string {
	if p := os.Getenv("WEBMCP_FIREFOX"); p != "" {
		return p
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// firefoxBridge is Firefox with the add-on, its host and a shim.
type firefoxBridge struct {
	*bridge
	bidi    *bidi.Client
	context string // the first tab's browsing context
}

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// startFirefox starts Firefox headless with a fresh profile, the
// add-on installed, and a webmcp-shim connected through an MCP client.
func startFirefox(t *testing.T) *firefoxBridge {
	t.Helper()
	if chromiumPath == "" {
		t.Skip("the e2e setup (install.sh) runs only where Chromium is")
	}
	ff := findFirefox()
	if ff == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Firefox on this machine, and CI is set: apt-get install firefox-esr (as .ci/run does), or set WEBMCP_FIREFOX")
		}
		t.Skip("no Firefox on this machine (set WEBMCP_FIREFOX, or apt-get install firefox-esr)")
	}
	b := &bridge{t: t, changed: make(chan struct{}, 1), updated: make(chan string, 16), logs: &logBuffer{}}
	t.Cleanup(func() {
		if t.Failed() || *verbose {
			t.Logf("logs:\n%s", b.logs.String())
		}
	})
	rd, err := os.MkdirTemp("", "wmrt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rd) })
	b.runtimeDir = filepath.Join(rd, "run")

	// Firefox reads the manifest from ~/.mozilla/native-messaging-hosts.
	home := t.TempDir()
	m, err := manifest.NewFirefox(filepath.Join(installDir, "bin", "webmcp-host"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Write(m, filepath.Join(home, ".mozilla", "native-messaging-hosts")); err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	log := bridgetest.NewLog(t, "firefox")
	cmd := exec.Command(ff, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0")
	cmd.Env = append(os.Environ(), "HOME="+home, "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "MOZ_CRASHREPORTER_DISABLE=1")
	logs := b.logs.prefixed("firefox: ")
	cmd.Stdout = logs
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { log.Write(p); return logs.Write(p) })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	line, err := log.Await(ctx, "WebDriver BiDi listening on ")
	if err != nil {
		t.Fatalf("Firefox's remote agent: %v", err)
	}
	mt := bidiListening.FindStringSubmatch(line)
	if mt == nil {
		t.Fatalf("Firefox's remote agent: no address in %q", line)
	}
	c, err := bidi.Dial(ctx, strings.TrimSuffix(mt[1], "/")+"/session")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Command(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	addon := filepath.Join(installDir, "share", "webmcp-bridge", "firefox-extension")
	if _, err := c.Command(ctx, "webExtension.install", map[string]any{"extensionData": map[string]any{"type": "path", "path": addon}}); err != nil {
		t.Fatalf("install the add-on: %v", err)
	}
	raw, err := c.Command(ctx, "browsingContext.getTree", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil || len(tree.Contexts) == 0 {
		t.Fatalf("browsingContext.getTree = %s, %v", raw, err)
	}
	b.client = b.connectShim()
	return &firefoxBridge{bridge: b, bidi: c, context: tree.Contexts[0].Context}
}

// navigate loads url in the first tab.
func (f *firefoxBridge) navigate(url string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.bidi.Command(ctx, "browsingContext.navigate", map[string]any{"context": f.context, "url": url, "wait": "complete"}); err != nil {
		f.t.Fatalf("navigate to %s: %v", url, err)
	}
}

// In Firefox the add-on starts the registered host, the demo page's tools
// reach the agent and a call runs in the page; get_ui_context reads the
// page; a navigation takes the tools away.
func TestFirefoxToolsAndCall(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("127.0.0.1", "/"))
	f.waitTool("echo")
	ctx := bridgetest.Context(t)
	res := f.call(ctx, "echo", map[string]any{"text": "hello from Firefox"})
	if res.IsError || text(res) != "hello from Firefox" {
		t.Errorf("echo = %q (error %v)", text(res), res.IsError)
	}
	res = f.call(ctx, "get_ui_context", map[string]any{})
	if res.IsError || !strings.Contains(text(res), "trace.Timeline#viewport") {
		t.Errorf("get_ui_context = %q (error %v)", text(res), res.IsError)
	}
	out, err := f.shimCLI("status")
	if err != nil || !strings.Contains(out, "Firefox ") {
		t.Errorf("webmcp-shim status = %v:\n%s", err, out)
	}
	f.navigate(demoURL("127.0.0.1", "/nothing-here"))
	f.waitTools("the demo's tools gone", func(m map[string]*mcp.Tool) bool { return m["echo"] == nil })
}

// waitPage waits in the first tab until the JavaScript boolean expression
// cond is true (see waitScript).
func (f *firefoxBridge) waitPage(cond string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, err := f.bidi.Command(ctx, "script.evaluate", map[string]any{
		"expression": waitScript(cond), "target": map[string]any{"context": f.context}, "awaitPromise": true,
	})
	var res struct {
		Type   string `json:"type"`
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil || res.Type != "success" || res.Result.Value != true {
		f.t.Fatalf("waiting in the page for %s: %s, %v", cond, raw, err)
	}
}

// In Firefox, cancelling a slow call reaches the page's AbortSignal.
func TestFirefoxCancel(t *testing.T) {
	f := startFirefox(t)
	f.navigate(demoURL("localhost", "/"))
	f.waitTool("slow_task")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"ms": 60000}})
		done <- err
	}()
	f.waitPage(`document.querySelector("#status").textContent.includes("slow_task running")`)
	cancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled call returned no error")
	}
	f.waitPage(`window.__lastAbort && window.__lastAbort.tool === "slow_task"`)
	if res := f.call(context.Background(), "get_selection", map[string]any{}); res.IsError {
		t.Errorf("get_selection after a cancel: %s", text(res))
	}
}
