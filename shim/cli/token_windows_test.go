package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/shim/token"
)

// TestTokenAndHTTPOnWindows: `token` makes the HTTP token in %AppData%
// (and keeps it, --new replaces it), and `--http` serves MCP to a client
// that sends it, not to one that does not.
func TestTokenAndHTTPOnWindows(t *testing.T) {
	appData, err := os.MkdirTemp("", "appdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("APPDATA", appData)
	path := filepath.Join(appData, token.Dir, token.FileName)
	t.Cleanup(func() { os.Remove(path); os.Remove(filepath.Dir(path)); os.Remove(appData) })
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)

	a := runCLI(ctx, t, dir, "", "token")
	a.expect(t, "token", ExitOK)
	if b := runCLI(ctx, t, dir, "", "token"); b.stdout != a.stdout {
		t.Errorf("token changed between runs: %q, %q", a.stdout, b.stdout)
	}
	if p := runCLI(ctx, t, dir, "", "token", "--path"); strings.TrimSpace(p.stdout) != path {
		t.Errorf("token --path = %q, want %s", p.stdout, path)
	}
	c := runCLI(ctx, t, dir, "", "token", "--new")
	c.expect(t, "token --new", ExitOK)
	tok := strings.TrimSpace(c.stdout)
	if c.stdout == a.stdout || len(tok) != 64 {
		t.Errorf("token --new printed %q, after %q", c.stdout, a.stdout)
	}

	url, _ := startHTTP(t, dir)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, send := range []struct {
		token string
		code  int
	}{{"", 401}, {tok, 200}} {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if send.token != "" {
			req.Header.Set("Authorization", "Bearer "+send.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != send.code {
			t.Errorf("initialize with token %q: %d, want %d", send.token, resp.StatusCode, send.code)
		}
	}
}
