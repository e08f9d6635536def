// Package httpserve serves the shim's MCP server over Streamable HTTP (the
// SDK's handler) behind a guard that refuses, before MCP sees them,
// requests without the bearer token, with a foreign Origin (a web page) or
// with a Host that is not this machine's or one the user named (DNS
// rebinding). [CheckAddr] keeps the listener on loopback unless the user
// asked for more.
//
// A client without the token holds no socket: every refusal closes the
// connection. Headers must come within [HeaderTimeout], a body must keep
// coming ([BodyStallTimeout]), and an idle connection is closed after
// [IdleTimeout]; nothing bounds a request once its body is in, so an SSE
// stream or a long tool call runs as long as it needs. A body may be as
// large as a message over stdio ([stdio.DefaultMaxMessage]); a larger one
// is answered in stdio's words (a tool result with isError for a
// tools/call), and the session goes on. Web pages of allowed origins get
// CORS: their preflights are answered, and their responses carry the
// Access-Control headers a browser needs to read them.
package httpserve

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim/stdio"
)

// Path is where the MCP endpoint is: http://ADDR/mcp.
const Path = "/mcp"

// The server's bounds on what a client may hold. None bounds a request
// once its body is in: a GET's SSE stream lives as long as its session, a
// tool call as long as its --timeout. net/http's ReadTimeout and
// WriteTimeout are not used: ReadTimeout bounds the whole request, body
// included, so any value would cut a large body coming slowly but
// steadily (16 MiB of arguments through an SSH tunnel), hence
// BodyStallTimeout, which bounds each wait for more instead; WriteTimeout
// bounds the whole response, and would end every SSE stream and every
// call that answers later than it.
const (
	// HeaderTimeout bounds the wait for a request's headers, from the
	// connection's start or the next request's first byte: a client that
	// connects and sends nothing, or headers a byte at a time, is cut.
	HeaderTimeout = 10 * time.Second
	// BodyStallTimeout bounds each wait for more of a request's body: a
	// body that stops coming is answered 408 and its connection closed;
	// one that keeps coming, however slowly, is read to its end.
	BodyStallTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection that carries no request
	// for that long. It is longer than the idle timeouts of HTTP clients
	// (Go's 90 s, Node's and Python's a few seconds), so that the client
	// closes first and never sends a request on a connection the server
	// is closing.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes bounds a request's headers: MCP's are a few hundred
	// bytes, a browser's cookies for localhost a few KiB.
	MaxHeaderBytes = 64 << 10
)

// CORS: what a web page of an allowed origin may send and read.
const (
	corsMethods = "GET, POST, DELETE"
	// corsHeaders are the request headers MCP clients send; a preflight
	// that asks for other Mcp-* headers (Mcp-Method, Mcp-Name,
	// Mcp-Param-*) gets those too.
	corsHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	// corsExpose are the response headers a page's script may read.
	corsExpose = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
	// corsMaxAge is how long (seconds) a browser may keep a preflight's
	// answer.
	corsMaxAge = "600"
)

// Options configure the guard.
type Options struct {
	// Token is the bearer token every request must carry
	// (Authorization: Bearer TOKEN). It must not be empty.
	Token string
	// Hosts are host names accepted in the Host header besides loopback
	// names (localhost, 127.0.0.1, ::1) and IP literals, e.g.
	// host.docker.internal for a devcontainer. Ports are not checked.
	Hosts []string
	// Origins are the Origin header values accepted besides pages of
	// this machine (localhost, 127.0.0.1, [::1], any port); requests
	// without an Origin header, as agents send them, are accepted.
	Origins []string
	// Logger gets a line per refused request; nil means none.
	Logger *slog.Logger
	// MaxMessage bounds one request's body in bytes; 0 means
	// stdio.DefaultMaxMessage, the bound of a message over stdio.
	MaxMessage int
	// HeaderTimeout, BodyStallTimeout and IdleTimeout replace the
	// constants of the same names when positive (tests shorten them).
	HeaderTimeout, BodyStallTimeout, IdleTimeout time.Duration
}

func (o *Options) maxMessage() int       { return orDefault(o.MaxMessage, stdio.DefaultMaxMessage) }
func (o *Options) stall() time.Duration  { return orDefault(o.BodyStallTimeout, BodyStallTimeout) }
func (o *Options) header() time.Duration { return orDefault(o.HeaderTimeout, HeaderTimeout) }
func (o *Options) idle() time.Duration   { return orDefault(o.IdleTimeout, IdleTimeout) }

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Handler returns the HTTP handler of srv: MCP Streamable HTTP at [Path]
// behind [Guard], 404 elsewhere (and the connection closed).
func Handler(srv *mcp.Server, opts Options) http.Handler {
	handler := func(stateless bool) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
			Stateless: stateless,
			// The guard checks Host against its own list (which may name
			// more than loopback, e.g. for a devcontainer).
			DisableLocalhostProtection: true,
			SessionTimeout:             time.Hour,
			Logger:                     opts.Logger,
			// The guard has read the body, within opts' bound.
			MaxRequestBodyBytes: int64(opts.maxMessage()),
		})
	}
	mux := http.NewServeMux()
	mux.Handle(Path, Guard(byRevision(handler(false), handler(true)), opts))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		closeAfter(w, r)
		http.Error(w, "webmcp-shim: nothing here; the MCP endpoint is "+Path, http.StatusNotFound)
	})
	return mux
}

// StatelessRevision is the first MCP revision whose clients hold no
// session (SEP-2567): each request names its revision in the
// Mcp-Protocol-Version header and stands alone.
const StatelessRevision = "2026-07-28"

// byRevision serves the requests of clients of StatelessRevision or later
// statelessly and all others (initialize, Mcp-Session-Id) with sessions:
// one endpoint for the clients of both kinds. A stateful handler refuses
// 2026-07-28 requests ("protocol version is not supported by this
// server"), and a stateless one cannot keep an older client's session.
func byRevision(stateful, stateless http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= StatelessRevision && r.Header.Get("Mcp-Session-Id") == "" {
			stateless.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), statelessKey{}, true)))
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// statelessKey marks the context of a request served without a session.
type statelessKey struct{}

// Stateless reports whether ctx is that of a request (or the MCP method
// it carries) that came without a session (a client of
// [StatelessRevision] or later): such a client is known by nothing but the
// name and version it gives, which another client may give too.
func Stateless(ctx context.Context) bool {
	v, _ := ctx.Value(statelessKey{}).(bool)
	return v
}

// Guard passes a request to next only if its Host is allowed, its Origin
// (if any) is allowed and it carries the token; otherwise it answers 421
// (Host), 403 (Origin) or 401 (token) with a text that says why, and
// closes the connection. It answers the CORS preflights of allowed
// origins, and adds the CORS headers to their responses. It reads the
// body before next sees it: over opts' MaxMessage it answers as stdio
// does, and a body that stalls is answered 408.
func Guard(next http.Handler, opts Options) http.Handler {
	if opts.Token == "" {
		panic("httpserve: Guard without a token")
	}
	hosts := make([]string, len(opts.Hosts))
	for i, h := range opts.Hosts {
		hosts[i] = strings.ToLower(strings.Trim(h, "[]"))
	}
	origins := make([]string, len(opts.Origins))
	for i, o := range opts.Origins {
		origins[i] = strings.ToLower(strings.TrimSuffix(o, "/"))
	}
	refuse := func(w http.ResponseWriter, r *http.Request, code int, why string) {
		if opts.Logger != nil {
			opts.Logger.Warn("refused an HTTP request", "from", r.RemoteAddr, "host", r.Host, "origin", r.Header.Get("Origin"), "why", why)
		}
		if code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="webmcp-shim"`)
		}
		closeAfter(w, r)
		http.Error(w, "webmcp-shim: "+why, code)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, hosts) {
			refuse(w, r, http.StatusMisdirectedRequest, fmt.Sprintf("Host %q is not this machine: reach the shim as 127.0.0.1 or localhost, or start it with --allow-host NAME", r.Host))
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" && !originAllowed(origin, origins) {
			refuse(w, r, http.StatusForbidden, fmt.Sprintf("requests from web pages of other sites (Origin %q) are refused; start the shim with --allow-origin %s to allow that one", origin, origin))
			return
		}
		if origin != "" {
			// A page of an allowed origin may read what it is
			// answered, refusals included.
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", corsExpose)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				preflight(w, r)
				return
			}
		}
		auth := r.Header.Get("Authorization")
		scheme, tok, _ := strings.Cut(auth, " ")
		switch {
		case auth == "":
			refuse(w, r, http.StatusUnauthorized, "no token: send the header Authorization: Bearer TOKEN, where TOKEN is what webmcp-shim token prints")
			return
		case !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(opts.Token)) != 1:
			refuse(w, r, http.StatusUnauthorized, "wrong token: send the header Authorization: Bearer TOKEN, where TOKEN is what webmcp-shim token prints (it changed if someone ran webmcp-shim token --new)")
			return
		}
		if r.ContentLength != 0 && !readBody(w, r, &opts) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// closeAfter makes the response to r the connection's last, and gives up
// what r's body has not sent yet: a refused client is not waited for.
func closeAfter(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	if r.ContentLength != 0 {
		// The server reads up to 256 KiB of an unread body after the
		// handler, with no deadline: a body that stalls would hold the
		// connection.
		http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}

// preflight answers a CORS preflight of an allowed origin: the methods
// and headers MCP clients use, any Mcp-* header asked for, and Private
// Network Access for a public page that reaches this machine.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	allow := corsHeaders
	for _, f := range strings.Split(r.Header.Get("Access-Control-Request-Headers"), ",") {
		f = strings.TrimSpace(f)
		if len(f) > 4 && strings.EqualFold(f[:4], "mcp-") && !strings.Contains(strings.ToLower(allow), strings.ToLower(f)) {
			allow += ", " + f
		}
	}
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", allow)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	if strings.EqualFold(r.Header.Get("Access-Control-Request-Private-Network"), "true") {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// readBody reads r's body whole, each wait for more bounded by opts'
// stall timeout, and puts it back for the handler. It answers, and returns
// false, a body that stalls (408), and one over opts' MaxMessage (as stdio
// answers a message over its limit: a tools/call gets a tool result with
// isError, another request a JSON-RPC error, 413, and one without an id
// 413 with the same words).
func readBody(w http.ResponseWriter, r *http.Request, opts *Options) bool {
	rc := http.NewResponseController(w)
	max, stall := opts.maxMessage(), opts.stall()
	var body []byte
	if r.ContentLength > 0 && r.ContentLength <= int64(max) {
		body = make([]byte, 0, r.ContentLength)
	}
	var over *oversized
	buf := make([]byte, 32<<10)
	for {
		rc.SetReadDeadline(time.Now().Add(stall))
		n, err := r.Body.Read(buf)
		chunk := buf[:n]
		switch {
		case over != nil:
			over.size += n
			over.tail = keepTail(over.tail, chunk)
		case len(body)+n > max:
			all := append(body, chunk...)
			over = &oversized{size: len(all), head: bytes.Clone(all[:min(len(all), stdio.SniffBytes)])}
			over.tail = keepTail(nil, all)
			body = nil
		default:
			body = append(body, chunk...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				got := len(body)
				if over != nil {
					got = over.size
				}
				if opts.Logger != nil {
					opts.Logger.Warn("cut an HTTP request whose body stopped coming", "from", r.RemoteAddr, "bytes", got, "announced", r.ContentLength, "waited", stall)
				}
				w.Header().Set("Connection", "close")
				http.Error(w, fmt.Sprintf("webmcp-shim: the request's body stopped coming: nothing for %v after %d bytes; send the body without pausing", stall, got), http.StatusRequestTimeout)
			}
			// Otherwise the client went away: nobody to answer.
			return false
		}
	}
	// Nothing bounds the rest of the request: the handler may stream its
	// answer for as long as it needs (net/http clears the deadline too
	// when it starts watching for the client going away; this does not
	// depend on it).
	rc.SetReadDeadline(time.Time{})
	if over != nil {
		tooLarge(w, r, opts, over, max)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return true
}

// oversized is what is kept of a body over the limit: its size, and its
// first and last bytes, where its id and method are.
type oversized struct {
	size       int
	head, tail []byte
}

// keepTail returns the last stdio.SniffBytes of tail followed by chunk,
// reusing tail's memory.
func keepTail(tail, chunk []byte) []byte {
	if len(chunk) >= stdio.SniffBytes {
		return append(tail[:0], chunk[len(chunk)-stdio.SniffBytes:]...)
	}
	tail = append(tail, chunk...)
	if cut := len(tail) - stdio.SniffBytes; cut > 0 {
		tail = tail[:copy(tail, tail[cut:])]
	}
	return tail
}

// tooLarge answers a request whose body was over max, in stdio's words.
func tooLarge(w http.ResponseWriter, r *http.Request, opts *Options, o *oversized, max int) {
	answer, method := stdio.Refusal(o.head, o.tail, o.size, max)
	if opts.Logger != nil {
		opts.Logger.Warn("refused a message over the size limit", "from", r.RemoteAddr, "bytes", o.size, "method", method, "limit", max)
	}
	switch {
	case answer == nil:
		http.Error(w, "webmcp-shim: "+stdio.TooLarge(o.size, max), http.StatusRequestEntityTooLarge)
	case method == "tools/call":
		// The agent's model reads it, as over stdio; the session goes on.
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		w.Write(answer)
	}
}

// originAllowed says whether a request from a page of origin o may go
// on: a page of this machine (http://localhost:*, http://127.0.0.1:*,
// http://[::1]:*), which still needs the token, or one of origins.
func originAllowed(o string, origins []string) bool {
	o = strings.ToLower(strings.TrimSuffix(o, "/"))
	if slices.Contains(origins, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed says whether the Host header names this machine: a loopback
// name, an IP literal (which DNS rebinding cannot forge), or one of hosts.
func hostAllowed(hostport string, hosts []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return false
	}
	if host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	return slices.Contains(hosts, host)
}

// CheckAddr checks the address given to --http: HOST:PORT, where HOST must
// be a loopback address (or localhost) unless allowRemote.
func CheckAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--http %q is not HOST:PORT (e.g. 127.0.0.1:8766)", addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %q is not a loopback address: the shim listens only on this machine (e.g. 127.0.0.1:8766) unless you add --allow-remote, which lets anyone who can reach that address and has the token use your browser's tools", addr)
}

// Serve serves h on ln until ctx ends, then shuts down, giving open
// requests a moment to finish. opts give its timeouts (HeaderTimeout,
// IdleTimeout); [Handler]'s guard bounds the bodies.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts Options) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opts.header(),
		IdleTimeout:       opts.idle(),
		MaxHeaderBytes:    MaxHeaderBytes,
		// No ReadTimeout nor WriteTimeout: see the comment on the
		// timeouts above; readBody bounds each wait for a body.
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(shutdown) != nil {
			srv.Close()
		}
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}
