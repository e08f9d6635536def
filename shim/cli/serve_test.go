package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// With no command, Main serves MCP on its stdin and stdout until the
// client goes, and then exits 0. Its stderr, which agents show (the MCP
// Inspector does), stays empty in a session where nothing goes wrong.
func TestServeOnStdio(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	t.Setenv(endpoint.RuntimeDirEnv, dir)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	stderr := bridgetest.NewLog(t, "webmcp-shim")
	go func() {
		c := Main(ctx, []string{"--timeout", "5s"}, inR, outW, stderr)
		outW.Close()
		code <- c
	}()
	sc := bridgetest.ConnectMCP(t, &mcp.IOTransport{Reader: outR, Writer: inW})
	if name := sc.Session.InitializeResult().ServerInfo.Name; name != "webmcp-shim" {
		t.Errorf("server name = %q", name)
	}
	sc.AwaitTools(ctx, "echo appears", bridgetest.Has("echo"))
	if res := sc.Call(ctx, "echo", map[string]any{"x": 1}); res.IsError || !strings.Contains(bridgetest.Text(res), `"args":{"x":1}`) {
		t.Errorf("echo = %s", bridgetest.Text(res))
	}
	sc.Session.Close()
	if c := bridgetest.Await(ctx, t, code, "Main to return after the client went"); c != ExitOK {
		t.Errorf("exit code %d, want %d", c, ExitOK)
	}
	if text := stderr.Text(); text != "" {
		t.Errorf("stderr of a session without trouble is not empty:\n%s", text)
	}
}

// One-shot commands print their output on stdout and nothing on stderr
// when nothing goes wrong; --verbose shows the shim's info lines.
func TestCommandsQuietStderr(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	for _, args := range [][]string{{"status"}, {"tools"}, {"call", "echo", `{"x":1}`}, {"call", "list_tabs"}, {"context"}, {"pins"}} {
		r := runCLI(ctx, t, dir, "", args...)
		r.expect(t, strings.Join(args, " "), ExitOK)
		if r.stderr != "" {
			t.Errorf("webmcp-shim %s: stderr %q, want none", strings.Join(args, " "), r.stderr)
		}
	}
	if r := runCLI(ctx, t, dir, "", "status", "-v"); !strings.Contains(r.stderr, "connected to host") {
		t.Errorf("status -v: stderr %q, want the info lines", r.stderr)
	}
}

// demo serves the demo app on loopback, says where, and stops cleanly when
// its context ends (the binary's SIGINT; cmd/webmcp-shim tests the signal).
func TestDemoInProcess(t *testing.T) {
	ctx, cancel := context.WithCancel(bridgetest.Context(t))
	defer cancel()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		c := Main(ctx, []string{"demo", "--addr", "127.0.0.1:0"}, strings.NewReader(""), outW, bridgetest.NewLog(t, "demo"))
		outW.Close()
		code <- c
	}()
	bridgetest.GetDemo(t, outR)
	cancel()
	if c := bridgetest.Await(bridgetest.Context(t), t, code, "demo to stop"); c != ExitOK {
		t.Errorf("demo exit code %d after its context ended, want 0", c)
	}
}

// call prints text as it is and other content in brief.
func TestCallPrintsContent(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	p.Handle("picture", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"a chart"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"},` +
			`{"type":"audio","data":"aGk=","mimeType":"audio/wav"},{"type":"resource_link","uri":"https://example.com/a","name":"a"}]}`), nil
	})
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "picture")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	r := runCLI(ctx, t, dir, "", "call", "picture")
	r.expect(t, "call picture", 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || lines[0] != "a chart" || lines[1] != "[image image/png, 5 bytes]" || lines[2] != "[audio audio/wav, 2 bytes]" ||
		!strings.Contains(lines[3], `"uri":"https://example.com/a"`) {
		t.Errorf("call picture printed:\n%s", r.stdout)
	}
}
