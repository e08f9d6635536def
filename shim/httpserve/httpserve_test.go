package httpserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
