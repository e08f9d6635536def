package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/stdio"
)

const tok = "0123456789abcdef0123456789abcdef"

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "passed") })
	g := Guard(ok, Options{Token: tok, Hosts: []string{"host.docker.internal"}, Origins: []string{"https://inspector.example"}})
	for _, tc := range []struct {
		name         string
		host, origin string
		auth         string
		code         int
		says         string
	}{
		{"token", "127.0.0.1:8766", "", "Bearer " + tok, 200, "passed"},
		{"lower-case scheme", "127.0.0.1:8766", "", "bearer " + tok, 200, "passed"},
		{"localhost, other port (ssh -L)", "localhost:9000", "", "Bearer " + tok, 200, "passed"},
		{"IPv6 loopback", "[::1]:8766", "", "Bearer " + tok, 200, "passed"},
		{"IP literal", "192.0.2.7:8766", "", "Bearer " + tok, 200, "passed"},
		{"allowed host", "host.docker.internal:8766", "", "Bearer " + tok, 200, "passed"},
		{"allowed origin", "127.0.0.1:8766", "https://inspector.example", "Bearer " + tok, 200, "passed"},
		{"page of this machine", "127.0.0.1:8766", "http://localhost:6274", "Bearer " + tok, 200, "passed"},
		{"page of 127.0.0.1", "localhost:8766", "http://127.0.0.1:8765", "Bearer " + tok, 200, "passed"},
		{"page of this machine without the token", "127.0.0.1:8766", "http://localhost:6274", "", 401, "no token"},
		{"rebinding origin", "127.0.0.1:8766", "http://localhost.evil.example", "Bearer " + tok, 403, "Origin"},
		{"no token", "127.0.0.1:8766", "", "", 401, "no token"},
		{"wrong token", "127.0.0.1:8766", "", "Bearer " + strings.Repeat("0", len(tok)), 401, "wrong token"},
		{"token prefix", "127.0.0.1:8766", "", "Bearer " + tok[:10], 401, "wrong token"},
		{"basic auth", "127.0.0.1:8766", "", "Basic " + tok, 401, "wrong token"},
		{"foreign origin", "127.0.0.1:8766", "http://evil.example", "Bearer " + tok, 403, "Origin"},
		{"null origin", "127.0.0.1:8766", "null", "Bearer " + tok, 403, "Origin"},
		{"DNS rebinding", "evil.example:8766", "", "Bearer " + tok, 421, "not this machine"},
		{"no host", "", "", "Bearer " + tok, 421, "not this machine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "http://x"+Path, strings.NewReader("{}"))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			g.ServeHTTP(w, req)
			if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.says) {
				t.Errorf("got %d %q, want %d and %q", w.Code, w.Body.String(), tc.code, tc.says)
			}
			if tc.code == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8766", false, true},
		{"127.0.0.1:0", false, true},
		{"localhost:8766", false, true},
		{"[::1]:8766", false, true},
		{"0.0.0.0:8766", false, false},
		{":8766", false, false},
		{"192.0.2.7:8766", false, false},
		{"example.com:8766", false, false},
		{"0.0.0.0:8766", true, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1:", false, false},
	} {
		err := CheckAddr(tc.addr, tc.remote)
		if (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %v) = %v", tc.addr, tc.remote, err)
		}
		if err != nil && !tc.remote && !strings.Contains(err.Error(), "127.0.0.1:8766") {
			t.Errorf("CheckAddr(%q) error does not show an example: %v", tc.addr, err)
		}
	}
}

// serveMCP runs an MCP server (no tools) behind Handler on 127.0.0.1 with
// opts and the test token, and returns its address; it stops when the test
// ends.
func serveMCP(t *testing.T, opts Options) string {
	t.Helper()
	opts.Token = tok
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, Handler(srv, opts), opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// hangGuard bounds a test's waits; nothing should come near it.
const hangGuard = 30 * time.Second

// send writes a raw request on a new connection to addr and reads the
// response's head and body.
func send(t *testing.T, addr, req string) (*http.Response, string, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(hangGuard))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response to %q: %v", firstLine(req), err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response to %q: %v", firstLine(req), err)
	}
	return resp, string(body), c, br
}

// awaitClosed waits until the server closes the connection.
func awaitClosed(t *testing.T, what string, br *bufio.Reader) {
	t.Helper()
	b, err := br.ReadByte()
	var ne net.Error
	switch {
	case err == nil:
		t.Errorf("%s: the server sent more: %q", what, b)
	case errors.As(err, &ne) && ne.Timeout():
		t.Errorf("%s: the server kept the connection open", what)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		// Closed.
	default:
		t.Errorf("%s: %v", what, err)
	}
}

func firstLine(s string) string { return s[:strings.Index(s, "\r\n")] }

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// post is a raw POST of body to /mcp with extra header lines; announce,
// when not 0, is the Content-Length said instead of the body's.
func post(body string, announce int, headers ...string) string {
	if announce == 0 {
		announce = len(body)
	}
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n%s\r\n%s",
		Path, announce, strings.Join(append(headers, ""), "\r\n"), body)
}

// A client without the token, or refused for its Origin or Host, holds no
// socket: the server closes the connection after its answer, even when the
// request's body is still to come.
func TestRefusalsCloseTheConnection(t *testing.T) {
	addr := serveMCP(t, Options{Origins: []string{"https://inspector.example"}})
	for _, tc := range []struct {
		name, req string
		code      int
	}{
		{"no token", post(initialize, 0), 401},
		{"no token, the body stalls", post(`{"`, 100), 401},
		{"no token, a large body stalls", post(`{"`, 1<<20), 401},
		{"wrong token", post(initialize, 0, "Authorization: Bearer nope"), 401},
		{"foreign Origin", post(initialize, 0, "Authorization: Bearer "+tok, "Origin: http://evil.example"), 403},
		{"foreign Host", strings.Replace(post(initialize, 0, "Authorization: Bearer "+tok), "Host: 127.0.0.1", "Host: evil.example", 1), 421},
		{"another path", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, _, br := send(t, addr, tc.req)
			if resp.StatusCode != tc.code || !strings.HasPrefix(body, "webmcp-shim: ") {
				t.Errorf("%d %q, want %d and the reason", resp.StatusCode, body, tc.code)
			}
			if !resp.Close {
				t.Errorf("the answer does not say Connection: close (%v)", resp.Header)
			}
			awaitClosed(t, tc.name, br)
		})
	}
}

// A connection that sends no headers, a body that stops coming and a
// kept-alive connection left idle are closed (the constants are the
// server's defaults). Each case has a server of its own where only the
// timeout it tests is short and the others are hang guards, so that no
// valid request has to beat a short timeout: the test waits for the
// server to close the connection, an event.
func TestStalledAndIdleConnectionsAreClosed(t *testing.T) {
	const short = 50 * time.Millisecond
	long := Options{HeaderTimeout: hangGuard, BodyStallTimeout: hangGuard, IdleTimeout: hangGuard}

	t.Run("no request", func(t *testing.T) {
		o := long
		o.HeaderTimeout = short
		addr := serveMCP(t, o)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(hangGuard))
		awaitClosed(t, "a connection without a request", bufio.NewReader(c))
	})

	t.Run("stalled body", func(t *testing.T) {
		o := long
		o.BodyStallTimeout = short
		addr := serveMCP(t, o)
		// 1 MB announced, 2 bytes sent, with the token.
		resp, body, _, br := send(t, addr, post(`{"`, 1_000_000, "Authorization: Bearer "+tok))
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "stopped coming") || !resp.Close {
			t.Errorf("a stalled body: %d %q (close: %v), want 408 saying so", resp.StatusCode, body, resp.Close)
		}
		awaitClosed(t, "a stalled body", br)
	})

	t.Run("idle", func(t *testing.T) {
		o := long
		o.IdleTimeout = short
		addr := serveMCP(t, o)
		resp, body, _, br := send(t, addr, post(initialize, 0, "Authorization: Bearer "+tok))
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("initialize: %d %q (close: %v)", resp.StatusCode, body, resp.Close)
		}
		awaitClosed(t, "an idle kept-alive connection", br)
	})
}

// A browser client of an allowed origin (the MCP Inspector's page, a page
// named by --allow-origin) gets its preflights answered and can read the
// answers; other origins are refused.
func TestCORS(t *testing.T) {
	addr := serveMCP(t, Options{Origins: []string{"https://inspector.example"}})
	url := "http://" + addr + Path
	ask := "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method"
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, url, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", ask)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, origin := range []string{"https://inspector.example", "http://localhost:6274"} {
		resp := preflight(origin)
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("preflight from %s: %d %v, want 204 allowing it", origin, resp.StatusCode, h)
		}
		for _, m := range []string{"GET", "POST", "DELETE"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("preflight from %s: methods %q lack %s", origin, h.Get("Access-Control-Allow-Methods"), m)
			}
		}
		allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
		for _, f := range strings.Split(ask, ", ") {
			if !strings.Contains(allowed, f) {
				t.Errorf("preflight from %s: headers %q lack %s", origin, allowed, f)
			}
		}
	}
	if resp := preflight("http://evil.example"); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v, want 403 without CORS headers", resp.StatusCode, resp.Header)
	}

	// The requests themselves: the page may read the answer, and the
	// session id; a refusal too.
	for _, tc := range []struct {
		auth string
		code int
	}{{"Bearer " + tok, 200}, {"", 401}} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Origin", "https://inspector.example")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != tc.code || h.Get("Access-Control-Allow-Origin") != "https://inspector.example" || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
			t.Errorf("POST from an allowed origin: %d %v, want %d with CORS headers", resp.StatusCode, h, tc.code)
		}
		if tc.code == 200 && h.Get("Mcp-Session-Id") == "" {
			t.Errorf("initialize from an allowed origin: no Mcp-Session-Id")
		}
	}
}

// A body over MaxMessage is answered as stdio answers such a message: a
// tools/call (its id first, as Go clients write it, or last, as
// TypeScript's do) with a tool result the model reads, another request
// with a JSON-RPC error, a notification with 413; the handler never sees
// them. A body within the limit reaches the handler whole.
func TestGuardBodyLimit(t *testing.T) {
	var got []byte
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		io.WriteString(w, "passed")
	})
	const max = 1000
	g := Guard(next, Options{Token: tok, MaxMessage: max})
	big := strings.Repeat("x", max)
	for _, tc := range []struct {
		name, body string
		code       int
		says       string
	}{
		{"tools/call, id first", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"s":"` + big + `"}}}`, 200, `"id":7,"result":{`},
		{"tools/call, id last", `{"method":"tools/call","params":{"name":"t","arguments":{"s":"` + big + `"}},"jsonrpc":"2.0","id":"a"}`, 200, `"id":"a","result":{`},
		{"another request", `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"s":"` + big + `"}}`, 413, `"id":8,"error":{"code":-32600`},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"` + big + `"}}`, 413, "webmcp-shim: the request is"},
		{"within the limit", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"s":"` + big[:900] + `"}}`, 200, "passed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			req := httptest.NewRequest("POST", "http://127.0.0.1"+Path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+tok)
			w := httptest.NewRecorder()
			g.ServeHTTP(w, req)
			body := w.Body.String()
			if w.Code != tc.code || !strings.Contains(body, tc.says) {
				t.Errorf("%d %.300s, want %d and %q", w.Code, body, tc.code, tc.says)
			}
			if tc.says == "passed" {
				if string(got) != tc.body {
					t.Errorf("the handler got %d bytes, want the %d sent", len(got), len(tc.body))
				}
				return
			}
			if got != nil {
				t.Error("the handler saw a body over the limit")
			}
			if words := stdio.TooLarge(len(tc.body), max); !strings.Contains(body, words) {
				t.Errorf("%.300s does not say %q", body, words)
			}
		})
	}
}

// The timeouts bound waits for a request, never a request under way: a
// client's SSE stream (GET) and a tool call that outlive the timeouts go
// on, and the stream carries a notification at the end. That the timeouts
// ran out meanwhile is an event the test waits for: a stalled body and an
// idle connection sent to the same server after the call started are
// closed. The header timeout is a hang guard here, so that the client's
// valid requests never race it (TestStalledAndIdleConnectionsAreClosed
// tests it).
func TestLongRequestsOutliveTheTimeouts(t *testing.T) {
	const short = 50 * time.Millisecond
	opts := Options{Token: tok, HeaderTimeout: hangGuard, BodyStallTimeout: short, IdleTimeout: short}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	release, started := make(chan struct{}), make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	ln := serveTest(t, srv, opts)

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + Path, HTTPClient: &http.Client{Transport: bearerRT(tok)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the long call never started")
	}
	// Both timeouts run out while the call and the stream are under way.
	addr := ln.Addr().String()
	resp, body, _, br := send(t, addr, post(`{"`, 1_000_000, "Authorization: Bearer "+tok))
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a stalled body: %d %q, want 408", resp.StatusCode, body)
	}
	awaitClosed(t, "a stalled body", br)
	resp, body, _, br = send(t, addr, post(initialize, 0, "Authorization: Bearer "+tok))
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %d %q", resp.StatusCode, body)
	}
	awaitClosed(t, "an idle kept-alive connection", br)
	mcp.AddTool(srv, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	close(release)
	select {
	case res := <-done:
		if res.IsError {
			t.Errorf("a long call: %v", res.Content[0].(*mcp.TextContent).Text)
		}
	case <-ctx.Done():
		t.Fatal("the long call never ended")
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed on the client's stream")
	}
}

// bearerRT adds the token to each request, each on a connection of its
// own: with the server's idle timeout as short as a test sets it, a
// kept-alive connection may close as the next request goes out on it
// ("server closed idle connection", seen in CI under load), which is not
// what these tests test.
type bearerRT string

var freshConns = &http.Transport{DisableKeepAlives: true}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return freshConns.RoundTrip(r)
}

// TestBothRevisions: one endpoint serves the clients of both MCP
// revisions that are about: 2026-07-28, stateless (each request names its
// revision; a stateful handler alone refuses it, and the SDK's client then
// falls back to 2025-11-25), and 2025-11-25 with its session.
func TestBothRevisions(t *testing.T) {
	opts := Options{Token: tok}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in["word"])}}}, nil, nil
	})
	ln := serveTest(t, srv, opts)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()

	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			var seen revisions
			hc := &http.Client{Transport: &seen}
			seen.next = bearerRT(tok)
			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + Path, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"word": "hello"}})
			if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hello" {
				t.Fatalf("echo: %+v, %v", res, err)
			}
			if got := seen.last(); got != rev {
				t.Errorf("the call went as revision %q, want %q (the answers: %v)", got, rev, seen.codes())
			}
			if rev >= StatelessRevision {
				if c := seen.codes(); strings.Contains(c, "400") {
					t.Errorf("a request of the stateless revision was refused: %s", c)
				}
			}
		})
	}
}

// revisions records the Mcp-Protocol-Version of each request and the
// status of each answer.
type revisions struct {
	next   http.RoundTripper
	mu     sync.Mutex
	seen   []string
	status []int
}

func (r *revisions) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, req.Header.Get("Mcp-Protocol-Version"))
	if err == nil {
		r.status = append(r.status, resp.StatusCode)
	}
	return resp, err
}

func (r *revisions) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[len(r.seen)-1]
}

func (r *revisions) codes() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.status)
}

// serveTest serves srv's Handler with opts on a loopback port until the
// test ends, and returns the listener (its address is the server's).
func serveTest(t *testing.T, srv *mcp.Server, opts Options) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(sctx, ln, Handler(srv, opts), opts) }()
	t.Cleanup(func() { stop(); <-served })
	return ln
}
