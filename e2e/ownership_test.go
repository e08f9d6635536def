package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds the shim's token to each HTTP request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpShim starts `webmcp-shim --http` for this bridge's browser and
// returns a function that connects an MCP client of the given name to it,
// once that client lists the demo's tools (a demo tab must be open).
func (b *bridge) httpShim() func(name string) *mcp.ClientSession {
	t := b.t
	t.Helper()
	config := t.TempDir() // the token lives here, not in the user's config
	env := append(os.Environ(), "WEBMCP_RUNTIME_DIR="+b.runtimeDir, "XDG_CONFIG_HOME="+config, "HOME="+config)
	shim := filepath.Join(installDir, "bin", "webmcp-shim")
	cmd := exec.Command(shim, "--http", "127.0.0.1:0")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Its address is on the line that says it serves.
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		w := b.logs.prefixed("shim --http: ")
		for sc.Scan() {
			line := sc.Text()
			w.Write([]byte(line + "\n"))
			if i := strings.Index(line, "http://127.0.0.1:"); i >= 0 && strings.Contains(line, "serving") {
				select {
				case found <- strings.Fields(line[i:])[0]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("webmcp-shim --http did not say where it serves")
	}
	tok := exec.Command(shim, "token")
	tok.Env = env
	out, err := tok.Output()
	if err != nil {
		t.Fatalf("webmcp-shim token: %v", err)
	}
	token := strings.TrimSpace(string(out))
	return func(name string) *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}
		changed := make(chan struct{}, 1)
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				select {
				case changed <- struct{}{}:
				default:
				}
			},
		})
		cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connect %s over HTTP: %v", name, err)
		}
		t.Cleanup(func() { cs.Close() })
		// Its shim has found the browser once it lists the page's tools.
		for {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("%s: list tools: %v", name, err)
			}
			for _, tool := range res.Tools {
				if tool.Name == "select_slice" {
					return cs
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("%s never listed the demo's tools", name)
			}
		}
	}
}

// TestCloseTabOwnership: a tab open_page opened is its agent's — its MCP
// session's, not every client's of the same HTTP shim — and only until the
// user uses it or it goes to another site. The panel lists every agent of
// the HTTP shim and drops the one that leaves.
func TestCloseTabOwnership(t *testing.T) {
	b := start(t, polyfill)
	b.open(demoURL("localhost", "/?mine"))
	b.waitTool("select_slice")
	connect := b.httpShim()
	alice, bob := connect("alice"), connect("bob")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()

	call := func(cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	open := func(query string) int {
		t.Helper()
		res := call(alice, "open_page", map[string]any{"url": demoURL("localhost", "/?"+query)})
		var op openedPage
		if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil || op.TabID <= 0 {
			t.Fatalf("open_page = %s", text(res))
		}
		return op.TabID
	}
	refused := func(who *mcp.ClientSession, tabID int, why string) {
		t.Helper()
		if res := call(who, "close_tab", map[string]any{"tabId": tabID}); !res.IsError || !strings.Contains(text(res), "only the user closes it") {
			t.Errorf("close_tab of %s = %s, want it refused", why, text(res))
		}
	}
	attachTo := func(query string) context.Context {
		t.Helper()
		targets, err := chromedp.Targets(b.browser)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasSuffix(tg.URL, "/?"+query) {
				tab, cancel := chromedp.NewContext(b.browser, chromedp.WithTargetID(tg.TargetID), chromedp.WithDetachOnCancel())
				t.Cleanup(cancel)
				return tab
			}
		}
		t.Fatalf("no tab of ?%s among %d targets", query, len(targets))
		return nil
	}

	// Another agent of the same shim may not close alice's tab.
	first := open("first")
	refused(bob, first, "another agent's tab (same shim)")

	// A tab the user clicked in is the user's. The click reaches the worker
	// before the answer to a sample of the same page (one Port, in
	// order): get_ui_context of that tab says when.
	used := open("used")
	tab := attachTo("used")
	focus(t, tab)
	click(t, tab, "3")
	var c struct {
		Tab   *struct{ ID int } `json:"tab"`
		Stale string            `json:"stale"`
	}
	res := call(alice, "get_ui_context", map[string]any{})
	if err := json.Unmarshal([]byte(text(res)), &c); err != nil || c.Tab == nil || c.Tab.ID != used || c.Stale != "" {
		t.Fatalf("get_ui_context = %s, want a fresh sample of tab %d", text(res), used)
	}
	refused(alice, used, "a tab the user clicked in")

	// A tab that went to another site is the user's. The tab's new site in
	// list_tabs says that the worker saw the navigation (its opener heard
	// of it first).
	away := open("away")
	if err := navigate(attachTo("away"), demoURL("127.0.0.1", "/?elsewhere")); err != nil {
		t.Fatal(err)
	}
	for len(b.tabIDs("/?elsewhere")) == 0 {
		select {
		case <-b.changed:
		case <-ctx.Done():
			t.Fatal("list_tabs never showed the tab's new site")
		}
	}
	refused(alice, away, "a tab that went to another site")

	// The panel lists both agents of the one shim, live: bob leaves, and
	// alice stays.
	panel := b.openPanel(b.tabID(localOrigin()), nil)
	agentListed := func(name string) string {
		return fmt.Sprintf(`[...document.querySelectorAll(".agents li")].some(li => li.textContent.startsWith(%q))`, name+" 1")
	}
	waitPage(t, panel, agentListed("alice")+" && "+agentListed("bob"))
	bob.Close()
	waitPage(t, panel, agentListed("alice")+" && !("+agentListed("bob")+")")

	// Its own, untouched tab alice closes.
	if res := call(alice, "close_tab", map[string]any{"tabId": first}); res.IsError {
		t.Errorf("close_tab of alice's own tab: %s", text(res))
	}
}
