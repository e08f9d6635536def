package cli

// The shim over Streamable HTTP: what an HTTP MCP client (and the
// conformance suite) does most, against the command line in the test
// process and a real host, on 127.0.0.1 only.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/stdio"
	"github.com/webmcp-bridge/bridge/shim/token"
)

// bearer adds a token to each request.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// startHTTP runs webmcp-shim --http 127.0.0.1:0 with extra args in the
// test process, and returns its URL; it stops when the test ends.
func startHTTP(t *testing.T, dir string, args ...string) (url string, log *bridgetest.Log) {
	t.Helper()
	t.Setenv(endpoint.RuntimeDirEnv, dir)
	log = bridgetest.NewLog(t, "webmcp-shim --http")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append([]string{"--http", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, log)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("webmcp-shim --http exited %d", code)
		}
	})
	line, err := log.Await(bridgetest.Context(t), "serving MCP (Streamable HTTP) at ")
	if err != nil {
		t.Fatal(err)
	}
	url = strings.Fields(line[strings.Index(line, " at ")+4:])[0]
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("URL %q", url)
	}
	return url, log
}

func TestHTTPServesTheShim(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	url, _ := startHTTP(t, dir)

	// The token the server uses is the one `token` prints.
	r := runCLI(ctx, t, dir, "", "token")
	r.expect(t, "token", 0)
	tok := strings.TrimSpace(r.stdout)
	path, _ := token.Path()
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != tok || len(tok) != 64 {
		t.Fatalf("token printed %q, file %s holds %q", tok, path, b)
	}

	// initialize, tools/list, tools/call, as an MCP client over HTTP.
	c := bridgetest.ConnectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tok}}})
	if got := c.Session.InitializeResult().ServerInfo.Name; got != "webmcp-shim" {
		t.Errorf("server name %q", got)
	}
	c.AwaitTools(ctx, "echo over HTTP", bridgetest.Has("echo", "list_tabs", "get_ui_context"))
	res := c.Call(ctx, "echo", map[string]any{"x": 1})
	if res.IsError || !strings.Contains(bridgetest.Text(res), `"x":1`) {
		t.Errorf("echo over HTTP: %+v %s", res, bridgetest.Text(res))
	}
	// A second client at the same time has its own session.
	c2 := bridgetest.ConnectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tok}}})
	c2.AwaitTools(ctx, "echo for a second client", bridgetest.Has("echo"))

	// Refusals, before MCP sees the request.
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		host   string
		code   int
	}{
		{"no token", nil, "", 401},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, "", 401},
		{"foreign Origin", map[string]string{"Authorization": "Bearer " + tok, "Origin": "http://evil.example"}, "", 403},
		{"foreign Host", map[string]string{"Authorization": "Bearer " + tok}, "evil.example", 421},
		{"accepted", map[string]string{"Authorization": "Bearer " + tok}, "", 200},
	} {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.code)
		}
		if tc.code != 200 && bytes.Contains(body, []byte("jsonrpc")) {
			t.Errorf("%s: MCP answered a refused request: %s", tc.name, body)
		}
	}
}

func TestHTTPRefusesRemoteAndStrayFlags(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := bridgetest.RuntimeDir(t)
	ctx := bridgetest.Context(t)
	r := runCLI(ctx, t, dir, "", "--http", "0.0.0.0:0")
	r.expect(t, "--http 0.0.0.0:0", 2)
	if !strings.Contains(r.stderr, "--allow-remote") {
		t.Errorf("stderr %q does not name --allow-remote", r.stderr)
	}
	runCLI(ctx, t, dir, "", "--http", "127.0.0.1:0", "status").expect(t, "--http with a command", 2)
	runCLI(ctx, t, dir, "", "--allow-remote").expect(t, "--allow-remote without --http", 2)
	runCLI(ctx, t, dir, "", "--http", "nonsense").expect(t, "--http without a port", 2)
	// Nothing was listening, so no token was needed either.
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), token.Dir, token.FileName)); err == nil {
		t.Error("refused --http runs made a token")
	}
}

func TestTokenCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)
	a := runCLI(ctx, t, dir, "", "token")
	a.expect(t, "token", 0)
	b := runCLI(ctx, t, dir, "", "token")
	if a.stdout != b.stdout {
		t.Errorf("token changed between runs: %q, %q", a.stdout, b.stdout)
	}
	c := runCLI(ctx, t, dir, "", "token", "--new")
	c.expect(t, "token --new", 0)
	if c.stdout == a.stdout || !strings.Contains(c.stderr, "restart") {
		t.Errorf("token --new: %q, stderr %q", c.stdout, c.stderr)
	}
	p := runCLI(ctx, t, dir, "", "token", "--path")
	if strings.TrimSpace(p.stdout) != filepath.Join(os.Getenv("XDG_CONFIG_HOME"), token.Dir, token.FileName) {
		t.Errorf("token --path = %q", p.stdout)
	}
}

// An agent on another machine reaches the shim through `ssh -L Q:127.0.0.1:P`:
// a loopback tunnel here, which forwards bytes to the shim as ssh does.
// The client's Host is then localhost:Q, which the shim accepts; nothing
// listens beyond loopback.
func TestHTTPThroughATunnel(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := bridgetest.RuntimeDir(t)
	ext := bridgetest.StartHost(t, dir, bridgetest.NewPage())
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	endpoint, _ := startHTTP(t, dir)
	ctx := bridgetest.Context(t)
	tok := strings.TrimSpace(runCLI(ctx, t, dir, "", "token").stdout)
	shimAddr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")

	tunnel, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tunnel.Close()
	go func() {
		for {
			in, err := tunnel.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", shimAddr)
			if err != nil {
				in.Close()
				continue
			}
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	_, port, _ := net.SplitHostPort(tunnel.Addr().String())
	url := "http://localhost:" + port + "/mcp"
	c := bridgetest.ConnectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tok}}})
	c.AwaitTools(ctx, "echo through the tunnel", bridgetest.Has("echo"))
	if res := c.Call(ctx, "echo", map[string]any{"x": 1}); res.IsError {
		t.Errorf("echo through the tunnel: %s", bridgetest.Text(res))
	}
}

// A devcontainer reaches the host as host.docker.internal: refused unless
// the shim was started with --allow-host host.docker.internal.
func TestHTTPAllowHost(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := bridgetest.RuntimeDir(t)
	plain, _ := startHTTP(t, dir)
	allowing, _ := startHTTP(t, dir, "--allow-host", "host.docker.internal")
	ctx := bridgetest.Context(t)
	tok := strings.TrimSpace(runCLI(ctx, t, dir, "", "token").stdout)
	for _, tc := range []struct {
		url  string
		code int
	}{{plain, 421}, {allowing, 200}} {
		req, _ := http.NewRequestWithContext(ctx, "POST", tc.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Host = "host.docker.internal:8766"
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s with Host host.docker.internal: %d, want %d", tc.url, resp.StatusCode, tc.code)
		}
	}
}

// Over HTTP a message may be as large as over stdio: a call with 5 MiB of
// arguments (over the MCP SDK's own 4 MiB) reaches the page; one over the
// stdio limit is answered in stdio's words, without reaching the page, and
// the session goes on.
func TestHTTPMessageSizes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	// A hang guard for 21 MiB through the race detector on a busy machine:
	// bridgetest.Timeout is too short for that (CI ran out of it once).
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	p.Handle("size", func(_ context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
		var args struct{ Data string }
		json.Unmarshal(call.Arguments, &args)
		return json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, len(args.Data))), nil
	})
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "size"), bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	url, _ := startHTTP(t, dir)
	tok := strings.TrimSpace(runCLI(ctx, t, dir, "", "token").stdout)
	c := bridgetest.ConnectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{tok}}})
	c.AwaitTools(ctx, "size over HTTP", bridgetest.Has("size", "echo"))

	const five = 5 << 20
	res := c.Call(ctx, "size", map[string]any{"data": strings.Repeat("x", five)})
	if res.IsError || !strings.Contains(bridgetest.Text(res), fmt.Sprintf(`{"bytes":%d}`, five)) {
		t.Errorf("a call with 5 MiB of arguments: %.300s", bridgetest.Text(res))
	}

	calls := len(p.Calls())
	res = c.Call(ctx, "size", map[string]any{"data": strings.Repeat("x", stdio.DefaultMaxMessage)})
	words := "over the bridge's limit of 16.1 MiB for one message from the agent; the page did not run it"
	if !res.IsError || !strings.Contains(bridgetest.Text(res), words) || res.Meta[results.MetaCode] != results.CodeTooLarge || res.Meta[results.MetaPageRan] != "no" {
		t.Errorf("a call over the limit: %.300s %v, want an error saying %q", bridgetest.Text(res), res.Meta, words)
	}
	if n := len(p.Calls()) - calls; n != 0 {
		t.Errorf("the page saw %d calls over the limit", n)
	}
	if res := c.Call(ctx, "echo", map[string]any{"x": 1}); res.IsError {
		t.Errorf("echo after the refusal: %s", bridgetest.Text(res))
	}
}
