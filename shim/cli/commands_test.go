package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

func TestCLIWithoutBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	const hint = "no browser connected: open Chrome/Chromium with the WebMCP bridge extension installed (see README)"

	r := runCLI(ctx, t, dir, "", "status")
	r.expect(t, "status", 0)
	if !strings.HasPrefix(r.stdout, hint) {
		t.Errorf("status stdout = %q", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "status", "--json")
	r.expect(t, "status --json", 0)
	var st StatusJSON
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if len(st.Hosts) != 0 || st.Note != hint || st.RuntimeDir != dir {
		t.Errorf("status --json = %+v", st)
	}

	r = runCLI(ctx, t, dir, "", "tools")
	r.expect(t, "tools", 0)
	if r.stdout != "" || strings.TrimSpace(r.stderr) != hint {
		t.Errorf("tools: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	r = runCLI(ctx, t, dir, "", "call", "echo", `{}`)
	r.expect(t, "call", 1)
	if r.stdout != "" || !strings.Contains(r.stderr, hint) {
		t.Errorf("call: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}

func TestCLIHelpAndUsage(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	r := runCLI(ctx, t, dir, "", "--help")
	r.expect(t, "--help", 0)
	for _, want := range []string{"webmcp-shim register claude|codex|gemini|cursor|vscode|claude-desktop", "status [--json]", "tools [--json]", "call [--json] NAME [JSON]",
		"context [--hook claude|codex|gemini] [--json]", "uninstall", "pin PROVIDER_ID", "unpin [PROVIDER_ID]", "pins [--json]",
		"--http HOST:PORT", "--timeout", "WEBMCP_RUNTIME_DIR"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q:\n%s", want, r.stdout)
		}
	}
	runCLI(ctx, t, dir, "", "frobnicate").expect(t, "unknown command", 2)
	runCLI(ctx, t, dir, "", "--timeout", "-1s", "status").expect(t, "negative timeout", 2)
	runCLI(ctx, t, dir, "", "call").expect(t, "call without a name", 2)
	r = runCLI(ctx, t, dir, "", "call", "echo", `{"a":`)
	r.expect(t, "call with bad JSON", 2)
	if !strings.Contains(r.stderr, "not valid JSON") {
		t.Errorf("call with bad JSON: %q", r.stderr)
	}
}

func TestCLIWithBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	p.Handle("throws", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return nil, protocol.Errorf(protocol.CodeToolError, "no slice 42")
	})
	p.Handle("count", bridgetest.EchoHandler)
	ext := bridgetest.StartHost(t, dir, p)
	count := bridgetest.Tool(12, "count")
	count.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	bank := bridgetest.Tab(13, "Bank")
	bank.Allowed = false
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer"), bank}, []protocol.Tool{bridgetest.Tool(12, "echo"), bridgetest.Tool(12, "throws"), count, bridgetest.Tool(13, "transfer")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 4 })

	r := runCLI(ctx, t, dir, "", "status", "--json")
	r.expect(t, "status --json", 0)
	var st StatusJSON
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	if len(st.Hosts) != 1 {
		t.Fatalf("status --json hosts = %+v", st.Hosts)
	}
	h := st.Hosts[0]
	if h.PID != ext.PID() || h.Browser == nil || h.Browser.Name != "Chromium" || h.Tools != 3 || !strings.HasPrefix(h.Session, "s") || filepath.Base(h.Socket) != filepath.Base(ext.Socket()) {
		t.Errorf("host = %+v", h)
	}
	if len(h.Tabs) != 2 || h.Tabs[0].ID != 12 || h.Tabs[0].Tools != 3 || !h.Tabs[0].Allowed || !h.Tabs[0].Active ||
		h.Tabs[1].ID != 13 || h.Tabs[1].Tools != 0 || h.Tabs[1].Allowed || h.Tabs[0].Title != "Trace viewer" || h.Tabs[0].URL != "http://localhost:8080/12" {
		t.Errorf("tabs = %+v", h.Tabs)
	}

	r = runCLI(ctx, t, dir, "", "status")
	r.expect(t, "status", 0)
	// The counts agree with tools: 3 page tools, and 8 with the bridge's
	// 5. The tab of a site not allowed shows its origin and why there is
	// no more, and how to allow it.
	for _, want := range []string{"Chromium 156.0.0.0", "2 tabs, 3 page tools", "Trace viewer", "http://localhost:8080/12",
		"Agents see 8 tools: 3 page tools and the bridge's own 5", "turn on \"Let local agents use this site\""} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	if f := tabLine(r.stdout, "13"); !strings.Contains(f, "(site not allowed)") || !strings.HasSuffix(f, "  http://localhost:8080") {
		t.Errorf("status line of tab 13 = %q, want that its site is not allowed, and its origin", f)
	}

	r = runCLI(ctx, t, dir, "", "tools")
	r.expect(t, "tools", 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 8 {
		t.Fatalf("tools printed %d lines, want 8 (the bridge's five, count, echo, throws):\n%s", len(lines), r.stdout)
	}
	// Each tool with its arguments: name, type, * if required.
	for i, want := range []string{"list_tabs()", "get_ui_context(", "open_page(url*: string, background: boolean, browser: string)", "focus_tab(tabId*: integer, browser: string)", "close_tab(tabId*: integer, key: string, browser: string)", "count(n*: integer)", "echo()", "throws()"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("tools line %d = %q, want it to start with %s", i, lines[i], want)
		}
		if i > 4 && !strings.Contains(lines[i], `[localhost:8080 · tab 12 "Trace viewer"]`) {
			t.Errorf("tools line %q lacks the provenance", lines[i])
		}
		// The page's own description, once, after the provenance.
		if name, _, _ := strings.Cut(want, "("); i > 4 && (!strings.HasSuffix(lines[i], "  Does "+name+".") || strings.Count(lines[i], "[localhost") != 1) {
			t.Errorf("tools line %q, want the provenance once and then the page's description", lines[i])
		}
	}

	r = runCLI(ctx, t, dir, "", "tools", "--json")
	r.expect(t, "tools --json", 0)
	var tools []shim.ToolInfo
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, r.stdout)
	}
	if len(tools) != 8 || tools[6].Name != "echo" || tools[6].PageName != "echo" || tools[6].TabID != 12 || tools[6].Origin != "http://localhost:8080" || tools[6].PageDescription != "Does echo." || !tools[0].Bridge || !tools[4].Bridge {
		t.Errorf("tools --json = %+v", tools)
	}

	r = runCLI(ctx, t, dir, "", "call", "echo", `{"x":1}`)
	r.expect(t, "call echo", 0)
	if strings.TrimSpace(r.stdout) != `{"tab":12,"frame":0,"name":"echo","args":{"x":1}}` {
		t.Errorf("call echo printed %q", r.stdout)
	}
	r = runCLI(ctx, t, dir, `{"y":2}`, "call", "--json", "echo", "-")
	r.expect(t, "call --json echo -", 0)
	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.IsError || !strings.Contains(bridgetest.Text(&res), `"args":{"y":2}`) {
		t.Errorf("call --json echo - printed %q (%v)", r.stdout, err)
	}

	r = runCLI(ctx, t, dir, "", "call", "throws")
	r.expect(t, "call throws", 1)
	if r.stdout != "" || !strings.Contains(r.stderr, "no slice 42") {
		t.Errorf("call throws: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	// Arguments off the schema go to the page, as the browser's own
	// agent sends them; the output ends with the bridge's note.
	r = runCLI(ctx, t, dir, "", "call", "count", `{"n":"x"}`)
	r.expect(t, "call count with arguments off its schema", 0)
	if !strings.Contains(r.stdout, `"args":{"n":"x"}`) || !strings.Contains(r.stdout, `do not match the tool's inputSchema: field "n": got string, want integer`) {
		t.Errorf("call count: stdout %q", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "call", "count", `[1]`)
	r.expect(t, "call count with an array", 1)
	if !strings.Contains(r.stderr, `invalid arguments for tool count: arguments must be a JSON object`) {
		t.Errorf("call count [1]: stderr %q", r.stderr)
	}
	r = runCLI(ctx, t, dir, "", "call", "transfer", `{}`)
	r.expect(t, "call of a tool of a tab not allowed", 1)
	if !strings.Contains(r.stderr, `no tool named "transfer"`) || !strings.Contains(r.stderr, "webmcp-shim tools") {
		t.Errorf("call transfer: stderr %q", r.stderr)
	}
	r = runCLI(ctx, t, dir, "", "call", "list_tabs")
	r.expect(t, "call list_tabs", 0)
	if !strings.Contains(r.stdout, `"title":"Trace viewer"`) || !strings.Contains(r.stdout, `{"id":13,"origin":"http://localhost:8080","allowed":false}`) || strings.Contains(r.stdout, "Bank") {
		t.Errorf("call list_tabs printed %q; want the allowed tab in full and only the id and origin of the other", r.stdout)
	}
	var seen []string
	for _, c := range p.Calls() {
		seen = append(seen, c.Name)
	}
	if strings.Join(seen, " ") != "echo echo throws count" {
		t.Errorf("the page saw calls of %v, want echo, echo, throws, count (arguments that are not an object never reach it)", seen)
	}
}

// tabLine is the line of status's table for tab id, "" if none.
func tabLine(out, id string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == id {
			return l
		}
	}
	return ""
}

// A host that accepts a connection but never answers is named in a clear
// error; the command still reports the hosts that did answer.
func TestCLIHostThatDoesNotAnswer(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	mute := endpoint.SocketPath(dir, 999999)
	ln, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, silent, until the listener closes
		}
	}()
	// And a socket left behind by a host that crashed.
	stale, err := net.Listen("unix", endpoint.SocketPath(dir, 999998))
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()

	r := runCLI(ctx, t, dir, "", "status")
	r.expect(t, "status with a mute host", 1)
	if !strings.Contains(r.stderr, "host-999999.sock did not send its state within 2s") {
		t.Errorf("status stderr does not name the mute host: %q", r.stderr)
	}
	// The stale socket (no listener, no process 999998) is removed by
	// the first command that finds it, without a warning.
	if strings.Contains(r.stderr, "host-999998.sock") {
		t.Errorf("status stderr mentions the stale socket: %q", r.stderr)
	}
	if _, err := os.Lstat(endpoint.SocketPath(dir, 999998)); !os.IsNotExist(err) {
		t.Errorf("the stale socket is still there after status (%v)", err)
	}
	if !strings.Contains(r.stdout, "Trace viewer") {
		t.Errorf("status left out the host that answered:\n%s", r.stdout)
	}
	r = runCLI(ctx, t, dir, "", "call", "echo")
	r.expect(t, "call with a mute host beside", 0)
}

// Arguments over the bridge's limit are refused by the shim, with both
// sizes, not taken for a lost browser; the page sees no call.
func TestCLICallArgumentsOverTheLimit(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	p.Handle("arglen", bridgetest.EchoHandler)
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "arglen")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	r := runCLI(ctx, t, dir, `{"data":"`+strings.Repeat("x", 65<<20-11)+`"}`, "call", "arglen", "-")
	r.expect(t, "call arglen with 65 MiB of arguments", 1)
	if !strings.Contains(r.stderr, "tool arglen: the arguments are 65.0 MiB of JSON (68157440 bytes), over the bridge's limit of 63.0 MiB") || strings.Contains(r.stderr, "went away") {
		t.Errorf("call arglen: stderr %q", r.stderr)
	}
	if n := len(p.Calls()); n != 0 {
		t.Errorf("the page saw %d calls, want none", n)
	}
}
