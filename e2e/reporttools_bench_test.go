package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkReportTools registers 1,980 tools in one page, 990 in the top
// frame and 990 in a same-origin iframe at the same time (the cap is 1,000
// per frame), awaiting each registration as a page would, and reports how
// long it took until the agent lists them all, in each WebMCP mode.
// Reporting must be linear in the tool count (issue 7: 2,000 tools took 46 s
// in native mode, 0.9 s with the polyfill).
//
//	go test ./e2e -run '^$' -bench ReportTools -benchtime 1x
func BenchmarkReportTools(b *testing.B) {
	for _, m := range modes {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				benchReportTools(b, m, 990) // per frame: the demo's own tools and these stay under 1,000
			}
		})
	}
}

func benchReportTools(b *testing.B, m mode, n int) {
	br := start(b, m)
	tab, _ := br.open(demoURL("localhost", "/?many"))
	eval[any](b, tab, `window.demo.ready`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard only
	defer cancel()
	begin := time.Now()
	eval[any](b, tab, fmt.Sprintf(`(async () => {
		const frame = document.createElement('iframe');
		document.body.append(frame);
		const register = async (mc, prefix) => {
			for (let i = 0; i < %d; i++) {
				await mc.registerTool({
					name: prefix + i, description: 'Tool ' + i + ' of many.',
					inputSchema: {type: 'object', properties: {x: {type: 'integer'}}},
					execute: () => i,
				});
			}
		};
		await Promise.all([register(document.modelContext, 'many_'), register(frame.contentDocument.modelContext, 'many_f')]);
	})()`, n))
	registered := time.Since(begin)
	for {
		got := 0
		for t, err := range br.client.Tools(ctx, nil) { // every page of tools/list
			if err != nil {
				b.Fatalf("list tools: %v", err)
			}
			if strings.HasPrefix(t.Name, "many_") {
				got++
			}
		}
		if got == 2*n {
			break
		}
		select {
		case <-br.changed:
		case <-ctx.Done():
			b.Fatalf("%d of %d tools listed after %v", got, 2*n, time.Since(begin))
		}
	}
	all := time.Since(begin)
	b.ReportMetric(all.Seconds(), "s-to-list")
	fmt.Printf("%s: %d tools registered in two frames in %v, all listed after %v\n", m, 2*n, registered, all)
}
