package e2e

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
)

var navcrashNavs = flag.Int("navcrash.navs", 300, "BenchmarkNavCrash: navigations per tab (4 tabs)")

// BenchmarkNavCrash measures how soon Chromium 156's browser process dies
// of a failed CHECK (SIGILL) while four tabs of one site navigate between
// two pages that register WebMCP tools (the demo's app and orders page),
// in native mode with the extension and in the same Chromium without it.
// It reports the navigations done and whether the browser crashed; a
// crash is a finding, not a failure.
//
// On 2026-12-04 (2 vCPUs): with the extension the browser crashed within
// seconds in 6 runs of 6; without it none crashed in 1,600 navigations; with
// the extension never calling getTools() none crashed in 4,800, and with
// getTools() only as each document finished parsing (no toolchange), one
// crash in 4,800. A getTools() under way while a document navigates is
// what brings the browser down (docs/limits.md).
//
//	./bench.sh -bench '^BenchmarkNavCrash$'
func BenchmarkNavCrash(b *testing.B) {
	if chromiumPath == "" {
		b.Skip("no Chromium on this machine (set WEBMCP_CHROMIUM, or install chromium)")
	}
	b.Run("extension", func(b *testing.B) {
		navCrash(b, start(b, native).browser)
	})
	b.Run("plain", func(b *testing.B) {
		navCrash(b, plainChromium(b, native))
	})
}

// navCrash navigates four tabs of browser back and forth *navcrashNavs
// times each and reports how many navigations went and whether the
// browser crashed.
func navCrash(b *testing.B, browser context.Context) {
	pages := []string{demoURL("localhost", "/orders.html"), demoURL("localhost", "/")}
	done := make(chan int, 4)
	crashed := make(chan error, 4)
	for w := 0; w < 4; w++ {
		tab, cancel := chromedp.NewContext(browser)
		b.Cleanup(cancel)
		go func() {
			n := 0
			for i := 0; i < *navcrashNavs; i++ {
				if err := navigate(tab, pages[i%2]); err != nil {
					crashed <- err
					done <- n
					return
				}
				n++
			}
			done <- n
		}()
	}
	total := 0
	for w := 0; w < 4; w++ {
		total += <-done
	}
	close(crashed)
	crash := 0.0
	for err := range crashed {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				crash = 1
				b.Logf("the browser died: %v", err)
				continue
			}
		}
		b.Fatalf("a navigation failed, and not with a crashed browser: %v", err)
	}
	b.ReportMetric(float64(total), "navigations")
	b.ReportMetric(crash, "crashed")
	fmt.Printf("%s: %d navigations, crashed: %v\n", b.Name(), total, crash == 1)
}
