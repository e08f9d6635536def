package e2e

// A tab that leaves an allowed site for one the extension may not see
// (issue SEC2 item 1): Chromium hides the URL and title of such a tab from
// the extension, which has no "tabs" permission. The tab must not go on
// being listed, or its frames routed, at the allowed address it had: by
// the user's navigation, a script's, or a server's redirect.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHidden serves, on 127.0.0.2 (not allowed), a plain page at /, and
// at /frame?src=URL a page that frames URL (allow="tools") and keeps every
// window message it gets in window.seen; it returns the origin.
func serveHidden(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/frame" {
			fmt.Fprint(w, watchingFramePage)
			return
		}
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Elsewhere</title></head><body><p>Another site.</p></body></html>`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// watchingFramePage frames the URL in its query with allow="tools" and
// keeps every window message it gets (window.seen, as JSON text); the
// framed page's ready message sets body[data-ready].
const watchingFramePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Watching</title></head><body>
<script>
window.seen = [];
addEventListener("message", (e) => {
  window.seen.push(JSON.stringify(e.data));
  if (e.data && e.data.ready) document.body.dataset.ready = "true";
}, true);
const f = document.createElement("iframe");
f.src = new URLSearchParams(location.search).get("src");
f.allow = "tools";
document.body.append(f);
</script></body></html>`

// A page of a site not allowed that frames an allowed one (issue SEC2 item
// 3): the framed page's registerTool settles in both modes, and the page
// hears nothing of the bridge (no message of the frame links).
func TestFramedBySiteNotAllowed(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		port := serveTrustSite(t)
		allowed := fmt.Sprintf("http://localhost:%d", port)
		hidden := serveHidden(t)
		tab, _ := b.open(hidden + "/frame?src=" + url.QueryEscape(allowed+"/tools"))
		waitPage(t, tab, `document.body.dataset.ready === "true"`)
		for _, msg := range eval[[]string](t, tab, `window.seen`) {
			if strings.Contains(msg, "__webmcpBridge") {
				t.Errorf("the page of %s, which the bridge does not run in, got %s", hidden, msg)
			}
		}
	})
}

// listedTab is a tab as list_tabs gives it.
type listedTab struct {
	Browser string `json:"browser"`
	HostPID int    `json:"hostPid"`
	ID      int    `json:"id"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Origin  string `json:"origin"`
	Allowed bool   `json:"allowed"`
}

// listTabs calls list_tabs.
func (b *bridge) listTabs() []listedTab {
	b.t.Helper()
	res := b.call(context.Background(), "list_tabs", map[string]any{})
	var out struct {
		Tabs []listedTab `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		b.t.Fatalf("list_tabs returned no JSON (%v): %s", err, text(res))
	}
	return out.Tabs
}

func TestHiddenAddress(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		port := serveTrustSite(t)
		allowed := fmt.Sprintf("http://localhost:%d", port)
		hidden := serveHidden(t)

		ways := []struct {
			name string
			go_  func(tab context.Context) error
		}{
			{"the user's navigation", func(tab context.Context) error { return chromedp.Do(tab, chromedp.Navigate(hidden+"/")) }},
			{"a script's navigation", func(tab context.Context) error {
				// RunResponse returns once the navigation the script started has its response.
				assign := chromedp.Evaluate[string](fmt.Sprintf(`location.href = %q`, hidden+"/"))
				_, err := chromedp.RunResponse(tab, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
					_, err := assign(ctx, t)
					return chromedp.Void{}, err
				})
				return err
			}},
			{"a server's redirect", func(tab context.Context) error {
				return chromedp.Do(tab, chromedp.Navigate(allowed+"/r?to="+url.QueryEscape(hidden+"/")))
			}},
		}
		for _, way := range ways {
			tab, closeTab := b.open(allowed + "/tools")
			b.waitTool("framed_act")
			var id int
			for _, lt := range b.listTabs() {
				if strings.HasPrefix(lt.URL, allowed+"/tools") && lt.Allowed {
					id = lt.ID
				}
			}
			if id == 0 {
				t.Fatalf("%s: list_tabs shows no allowed tab at %s/tools: %+v", way.name, allowed, b.listTabs())
			}
			if err := way.go_(tab); err != nil {
				t.Fatalf("%s: %v", way.name, err)
			}
			waitPage(t, tab, `document.title === "Elsewhere"`)
			b.waitTools("framed_act gone", func(ts map[string]*mcp.Tool) bool { return ts["framed_act"] == nil })
			for _, lt := range b.listTabs() {
				if lt.ID == id && (lt.Allowed || strings.Contains(lt.URL, "localhost") || lt.Title != "") {
					t.Errorf("%s to %s: list_tabs still lists tab %d as %+v", way.name, hidden, id, lt)
				}
			}
			closeTab()
		}

	})
}
