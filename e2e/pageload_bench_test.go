package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

var pageLoads = flag.Int("pageload.n", 20, "BenchmarkPageLoad: loads per browser, site and page")

// The pages BenchmarkPageLoad loads: a small one with a script, and one of
// about 2 MB of DOM.
var pageLoadPages = map[string]string{
	"small": `<!doctype html><title>small</title><script>window.x = 1;</script><p>small page</p>`,
	"2MB":   "<!doctype html><title>big</title><body>" + strings.Repeat(`<div class="row"><span>cell</span> some text of the row, long enough to weigh</div>`, 25000) + "</body>",
}

// BenchmarkPageLoad (issue FID): what a page load costs with the bridge,
// beside the same Chromium without any extension and with a trivial
// extension (one empty content script on every page), on a site not
// allowed (127.0.0.3) and an allowed one (127.0.0.1), in polyfill mode:
// the median load time (navigation start to the load event's end) and
// the renderer's script time per load (CDP Performance ScriptDuration).
// The figure that matters: on a site not allowed, the bridge costs what
// the trivial extension costs (it injects nothing there); on an allowed
// site it costs its scripts.
//
//	go test ./e2e -run '^$' -bench '^BenchmarkPageLoad$' -benchtime 1x
func BenchmarkPageLoad(b *testing.B) {
	if chromiumPath == "" {
		b.Skip("no Chromium on this machine")
	}
	serve := func(host string) string {
		ln, err := net.Listen("tcp", host+":0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprint(w, pageLoadPages[strings.TrimPrefix(r.URL.Path, "/")])
		})}
		go srv.Serve(ln)
		b.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	sites := []struct{ name, origin string }{{"not allowed", serve("127.0.0.3")}, {"allowed", serve("127.0.0.1")}}

	trivial := filepath.Join(b.TempDir(), "trivial")
	os.MkdirAll(trivial, 0o755)
	manifest, _ := json.Marshal(map[string]any{
		"manifest_version": 3, "name": "trivial", "version": "1",
		"content_scripts": []map[string]any{{"matches": []string{"<all_urls>"}, "js": []string{"empty.js"}, "run_at": "document_start", "all_frames": true}},
	})
	os.WriteFile(filepath.Join(trivial, "manifest.json"), manifest, 0o644)
	os.WriteFile(filepath.Join(trivial, "empty.js"), nil, 0o644)

	browsers := []struct {
		name  string
		start func(b *testing.B) context.Context
	}{
		{"no-extension", func(b *testing.B) context.Context { return plainChromium(b, polyfill) }},
		{"trivial-extension", func(b *testing.B) context.Context { return chromiumWith(b, trivial) }},
		{"bridge", func(b *testing.B) context.Context { return start(b, polyfill).browser }},
	}
	// One sub-benchmark per browser, so that each browser has quit before
	// the next one is measured.
	for _, br := range browsers {
		b.Run(br.name, func(b *testing.B) {
			var out strings.Builder
			for i := 0; i < b.N; i++ {
				out.Reset()
				browser := br.start(b)
				for _, site := range sites {
					for _, page := range []string{"small", "2MB"} {
						load, script := timeLoads(b, browser, site.origin+"/"+page, *pageLoads)
						fmt.Fprintf(&out, "%-18s %-12s %-5s load %7.1f ms  script %6.1f ms per load\n", br.name, site.name, page, ms(load), ms(script))
						unit := strings.ReplaceAll(site.name, " ", "-") + "/" + page
						b.ReportMetric(ms(load), "ms-load:"+unit)
						b.ReportMetric(ms(script), "ms-script:"+unit)
					}
				}
			}
			b.Logf("polyfill mode, median of %d loads:\n%s", *pageLoads, out.String())
		})
	}
}

// chromiumWith starts Chromium (polyfill mode) with the unpacked extension ext only.
func chromiumWith(tb testing.TB, ext string) context.Context {
	tb.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", ext),
		chromedp.Flag("disable-extensions-except", ext),
		chromedp.Flag("enable-features", "NetworkService,NetworkServiceInProcess"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tb.Cleanup(cancelAlloc)
	browser, _ := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(browser, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatalf("start Chromium with %s: %v", ext, err)
	}
	tb.Cleanup(func() { chromedp.Cancel(browser) })
	return browser
}

// timeLoads loads url n times (after one to warm up) in a new tab and
// returns the median load time and script time per load.
func timeLoads(tb testing.TB, browser context.Context, url string, n int) (load, script time.Duration) {
	tb.Helper()
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		tb.Fatal(err)
	}
	if _, err := chromedp.Call(tab, performance.Enable, performance.EnableParams{}); err != nil {
		tb.Fatal(err)
	}
	scriptTime := func() float64 {
		m, err := chromedp.Call(tab, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			tb.Fatal(err)
		}
		for _, x := range m.Metrics {
			if x.Name == "ScriptDuration" {
				return x.Value
			}
		}
		return 0
	}
	const loadEnd = `new Promise((resolve) => {
		const end = () => performance.getEntriesByType("navigation")[0].loadEventEnd;
		if (end() > 0) return resolve(end());
		addEventListener("load", () => setTimeout(() => resolve(end()), 0), {once: true});
	})`
	var loads, scripts []time.Duration
	for i := 0; i <= n; i++ {
		before := scriptTime()
		if err := chromedp.Do(tab, chromedp.Navigate(fmt.Sprintf("%s?%d", url, i))); err != nil {
			tb.Fatalf("load %s: %v", url, err)
		}
		end, err := chromedp.Run(tab, chromedp.Evaluate[float64](loadEnd, chromedp.EvalAwaitPromise))
		if err != nil {
			tb.Fatal(err)
		}
		after := scriptTime()
		if i == 0 {
			continue // warm-up
		}
		loads = append(loads, time.Duration(end*float64(time.Millisecond)))
		// The metric is the renderer's: a load in a new renderer process
		// starts it again from zero.
		d := after - before
		if d < 0 {
			d = after
		}
		scripts = append(scripts, time.Duration(d*float64(time.Second)))
	}
	slices.Sort(loads)
	slices.Sort(scripts)
	return loads[len(loads)/2], scripts[len(scripts)/2]
}
