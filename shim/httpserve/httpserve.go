// Package httpserve serves the shim's MCP server over Streamable HTTP (the
// SDK's handler) behind a guard that refuses, before MCP sees them,
// requests without the bearer token, with a foreign Origin (a web page) or
// with a Host that is not this machine's or one the user named (DNS
// rebinding). [CheckAddr] keeps the listener on loopback unless the user
// asked for more.
package httpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the MCP endpoint is: http://ADDR/mcp.
const Path = "/mcp"

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
}

// Handler returns the HTTP handler of srv: MCP Streamable HTTP at [Path]
// behind [Guard], 404 elsewhere.
func Handler(srv *mcp.Server, opts Options) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		// The guard checks Host against its own list (which may name
		// more than loopback, e.g. for a devcontainer).
		DisableLocalhostProtection: true,
		SessionTimeout:             time.Hour,
		Logger:                     opts.Logger,
	})
	mux := http.NewServeMux()
	mux.Handle(Path, Guard(h, opts))
	return mux
}

// Guard passes a request to next only if its Host is allowed, its Origin
// (if any) is allowed and it carries the token; otherwise it answers 421
// (Host), 403 (Origin) or 401 (token) with a text that says why.
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
		http.Error(w, "webmcp-shim: "+why, code)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, hosts) {
			refuse(w, r, http.StatusMisdirectedRequest, fmt.Sprintf("Host %q is not this machine: reach the shim as 127.0.0.1 or localhost, or start it with --allow-host NAME", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, origins) {
			refuse(w, r, http.StatusForbidden, fmt.Sprintf("requests from web pages of other sites (Origin %q) are refused; start the shim with --allow-origin %s to allow that one", o, o))
			return
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
		next.ServeHTTP(w, r)
	})
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
// requests a moment to finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
