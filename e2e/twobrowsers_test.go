package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/shim"
)

// tabsAt are the tabs of tabs whose URL contains part.
func tabsAt(tabs []listedTab, part string) []listedTab {
	var out []listedTab
	for _, t := range tabs {
		if strings.Contains(t.URL, part) {
			out = append(out, t)
		}
	}
	return out
}

// pageTargets are the URLs of the page targets of b's browser that
// contain part.
func (b *bridge) pageTargets(part string) []string {
	b.t.Helper()
	infos, err := chromedp.Targets(b.browser)
	if err != nil {
		b.t.Fatalf("list the browser's targets: %v", err)
	}
	var out []string
	for _, in := range infos {
		if in.Type == "page" && strings.Contains(in.URL, part) {
			out = append(out, in.URL)
		}
	}
	return out
}

// TestTwoBrowsers (TRUST item 13): one agent, two browsers. Two Chromiums,
// each with its own profile (one with the browser's own WebMCP, one with
// the extension's polyfill), each start their own webmcp-host in the
// runtime directory of one shim, as two browsers of the user's do.
// list_tabs lists the tabs of both and says which browser each is in; the
// demo's tools, open in both, get distinct names, and a call to each name
// runs in its own browser's page (the page's own count of its calls says
// so); open_page's browser argument opens the tab in the browser it names,
// and a browser that is not connected, or a name both share, is a clear
// error; close_tab's closes the tab of the browser it names, and a tab id
// that both have is refused without it. One browser's host
// is killed and comes back: the other browser's tools work meanwhile, and
// the first's keep their names and land in it again. One browser closes
// for good: during its grace the other's tools work and its own stay
// listed; after the grace its tools leave the list with one
// tools/list_changed, a call that waited for it is told that it did not
// come back, and the other browser's tools stay and work.
func TestTwoBrowsers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard only
	defer cancel()
	a := start(t, native)
	// The agent's shim logs at info level: the test waits for its
	// "disconnected from host" lines. The shim that start connected goes.
	a.client.Close()
	a.client = a.connectShim("--verbose")
	listTools := func() map[string]*mcp.Tool {
		t.Helper()
		return a.waitTools("the tool list", func(map[string]*mcp.Tool) bool { return true })
	}
	// No page is open: the agent has the bridge's own tools.
	bridgeTools := sortedKeys(listTools())
	pageTools := func(m map[string]*mcp.Tool) []string {
		var out []string
		for _, name := range sortedKeys(m) {
			if !slices.Contains(bridgeTools, name) {
				out = append(out, name)
			}
		}
		return out
	}

	tabA, _ := a.open(demoURL("localhost", "/?in=a"))
	demoTools := len(eval[[]string](t, tabA, `window.demo.ready`)) // it registered them
	// The demo's tools, under their own names.
	toolsA := pageTools(a.waitTools("the first browser's demo tools", func(m map[string]*mcp.Tool) bool { return len(m) == demoTools+len(bridgeTools) }))
	listed := tabsAt(a.listTabs(), "?in=a")
	if len(listed) != 1 || listed[0].HostPID <= 0 {
		t.Fatalf("list_tabs lists %+v for the first browser's tab", listed)
	}
	pidA := listed[0].HostPID

	b := a.startAnother(polyfill)
	tabB, _ := b.open(demoURL("localhost", "/?in=b"))
	eval[any](t, tabB, `window.demo.ready`)

	// Names across browsers: the same page tool of the same site in two
	// browsers is two MCP tools. The first browser's keep the page's own
	// names (a name stays with its tool); the second's get a suffix.
	both := a.waitTools("the second browser's demo tools", func(m map[string]*mcp.Tool) bool { return len(m) == 2*demoTools+len(bridgeTools) })
	var toolsB []string
	for _, name := range pageTools(both) {
		if !slices.Contains(toolsA, name) {
			toolsB = append(toolsB, name)
		}
	}
	if !slices.Contains(toolsA, "echo") || !slices.Contains(toolsB, "echo_2") || len(toolsB) != demoTools {
		t.Fatalf("the first browser's demo tools are %v and the second's %v; want echo and echo_2 among them, %d each", toolsA, toolsB, demoTools)
	}

	// list_tabs: both browsers' tabs, each with its browser and host.
	all := a.listTabs()
	inA, inB := tabsAt(all, "?in=a"), tabsAt(all, "?in=b")
	if len(inA) != 1 || len(inB) != 1 {
		t.Fatalf("list_tabs lists %+v, want the demo tab of each browser once", all)
	}
	pidB := inB[0].HostPID
	if inA[0].HostPID != pidA || pidB <= 0 || pidB == pidA {
		t.Fatalf("list_tabs puts the first browser's tab at host %d and the second's at host %d; want %d and another", inA[0].HostPID, pidB, pidA)
	}
	if inA[0].Browser == "" || inB[0].Browser == "" {
		t.Errorf("list_tabs does not name the browser of each tab: %+v", all)
	}

	// Calls land in their own browser: each page counts the runs of its
	// echo (window.demo.calls).
	runs := map[*bridge]int{a: 0, b: 0}
	tabOf := map[*bridge]context.Context{a: tabA, b: tabB}
	nameOf := map[*bridge]string{a: "A", b: "B"}
	checkRuns := func(when string) {
		t.Helper()
		for br, want := range runs {
			if br == a && a.browser.Err() != nil {
				continue // closed
			}
			if got := eval[int](t, tabOf[br], `window.demo.calls.echo || 0`); got != want {
				t.Errorf("%s: browser %s's page ran echo %d times, want %d", when, nameOf[br], got, want)
			}
		}
	}
	callIn := func(br *bridge, name, when string) {
		t.Helper()
		say := fmt.Sprintf("%s, to %s", when, name)
		res := a.call(ctx, name, map[string]any{"text": say})
		if res.IsError || text(res) != say {
			t.Errorf("%s: %s answered %q, want %q", when, name, text(res), say)
		}
		runs[br]++
		checkRuns(say)
	}
	callIn(a, "echo", "at first")
	callIn(b, "echo_2", "at first")
	callIn(a, "echo", "again")

	// open_page's browser argument: the new tab opens in the browser
	// named by its host's pid, whichever the user looks at.
	openedTab, openedTools := map[*bridge]int{}, map[*bridge][]string{}
	for _, to := range []struct {
		br    *bridge
		pid   int
		tools *[]string
	}{{b, pidB, &toolsB}, {a, pidA, &toolsA}} {
		query := "?opened=" + nameOf[to.br]
		res := a.call(ctx, "open_page", map[string]any{"url": demoURL("localhost", "/"+query), "browser": strconv.Itoa(to.pid)})
		var op shim.OpenedPage
		if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil {
			t.Fatalf("open_page in browser %s = %s", nameOf[to.br], text(res))
		}
		if op.HostPID != to.pid || op.Browser == "" || len(op.Tools) != demoTools {
			t.Errorf("open_page in browser %s (host %d) = %+v, want that host and the demo's %d tools", nameOf[to.br], to.pid, op, demoTools)
		}
		*to.tools = append(*to.tools, op.Tools...)
		openedTab[to.br], openedTools[to.br] = op.TabID, op.Tools
		other := a
		if to.br == a {
			other = b
		}
		if got := to.br.pageTargets(query); len(got) != 1 {
			t.Errorf("open_page in browser %s: that browser has %v", nameOf[to.br], got)
		}
		if got := other.pageTargets(query); len(got) != 0 {
			t.Errorf("open_page in browser %s opened %v in browser %s", nameOf[to.br], got, nameOf[other])
		}
		if got := tabsAt(a.listTabs(), query); len(got) != 1 || got[0].HostPID != to.pid || got[0].ID != op.TabID {
			t.Errorf("list_tabs lists %+v for the tab open_page opened in browser %s (tab %d)", got, nameOf[to.br], op.TabID)
		}
	}
	// A browser that is not connected, or a name that both browsers share
	// (two Chromiums of one version), is an error that names the connected
	// browsers by their hosts' pids, and opens nothing.
	for bad, says := range map[string]string{
		"Firefox":  `no connected browser is "Firefox"`,
		"1":        `no connected browser is "1"`,
		"Chromium": `2 connected browsers are "Chromium": name one by its hostPid`,
	} {
		res := a.call(ctx, "open_page", map[string]any{"url": demoURL("localhost", "/?nowhere"), "browser": bad})
		msg := text(res)
		if !res.IsError || !strings.Contains(msg, says) ||
			!strings.Contains(msg, fmt.Sprintf("hostPid %d", pidA)) || !strings.Contains(msg, fmt.Sprintf("hostPid %d", pidB)) {
			t.Errorf("open_page in browser %q = %s, want an error that says %s and names both browsers by hostPid", bad, msg, says)
		}
	}
	if got := append(a.pageTargets("?nowhere"), b.pageTargets("?nowhere")...); len(got) != 0 {
		t.Errorf("open_page in a browser that is not connected opened %v", got)
	}

	// close_tab's browser argument: each browser numbers its own tabs
	// (these two, copies of one prepared profile, even alike), and
	// close_tab closes the tab of the browser it names. Without it a tab
	// id that both browsers have is refused.
	if openedTab[a] == openedTab[b] {
		res := a.call(ctx, "close_tab", map[string]any{"tabId": openedTab[b]})
		if msg := text(res); !res.IsError || !strings.Contains(msg, fmt.Sprintf("hostPid %d", pidA)) || !strings.Contains(msg, fmt.Sprintf("hostPid %d", pidB)) {
			t.Errorf("close_tab of tab %d, which both browsers have, without a browser = %s; want an error that names both", openedTab[b], msg)
		}
	}
	if res := a.call(ctx, "close_tab", map[string]any{"tabId": openedTab[b], "browser": strconv.Itoa(pidB)}); res.IsError {
		t.Errorf("close_tab of the tab opened in B = %s", text(res))
	}
	waitCtx, cancelWait := context.WithTimeout(b.browser, 20*time.Second)
	if err := awaitTargets(waitCtx, func(infos []*target.Info) bool {
		return !slices.ContainsFunc(infos, func(in *target.Info) bool { return strings.Contains(in.URL, "?opened=B") })
	}); err != nil {
		t.Errorf("close_tab of the tab opened in B: it is still open: %v", err)
	}
	cancelWait()
	if got := a.pageTargets("?opened=A"); len(got) != 1 {
		t.Errorf("close_tab of the tab opened in B: A's has %v", got)
	}
	toolsB = slices.DeleteFunc(toolsB, func(name string) bool { return slices.Contains(openedTools[b], name) })
	slices.Sort(toolsA)
	slices.Sort(toolsB)
	a.waitTools("the closed tab's tools to go", func(m map[string]*mcp.Tool) bool {
		return len(m) == len(toolsA)+len(toolsB)+len(bridgeTools)
	})
	before := listTools()
	if want := slices.Sorted(slices.Values(slices.Concat(toolsA, toolsB, bridgeTools))); !slices.Equal(sortedKeys(before), want) {
		t.Fatalf("the agent's tools are %v, want %v", sortedKeys(before), want)
	}

	// B's host is killed; B's extension starts another. A's tools work
	// meanwhile, B's stay listed under the same names, and a call to B's
	// echo goes to B once its new host is there.
	from := a.logs.mark()
	if err := killPID(pidB); err != nil {
		t.Fatalf("kill B's host %d: %v", pidB, err)
	}
	if _, err := a.logs.await(ctx, from, "shim: ", "disconnected from host", fmt.Sprintf("host-%d.", pidB)); err != nil {
		t.Fatalf("the agent's shim did not see B's host go: %v", err)
	}
	if now := sortedKeys(listTools()); !slices.Equal(now, sortedKeys(before)) {
		t.Errorf("while B's host was gone the agent's tools were %v, want them as before: %v", now, sortedKeys(before))
	}
	callIn(a, "echo", "B's host gone")
	callIn(b, "echo_2", "B's host gone")
	if got := tabsAt(a.listTabs(), "?in=b"); len(got) != 1 || got[0].HostPID == pidB || got[0].HostPID <= 0 {
		t.Errorf("after B's host came back list_tabs lists %+v for B's tab, want it at B's new host", got)
	}
	if now := sortedKeys(listTools()); !slices.Equal(now, sortedKeys(before)) {
		t.Errorf("after B's host came back the agent's tools are %v, want them as before: %v", now, sortedKeys(before))
	}

	// A goes for good: its browser process ends at once, as in a crash.
	// (A browser that closes properly closes its tabs first, which takes
	// their tools away at once.) A's tools stay listed for its grace, in
	// which the other browser's work and a call to A's echo waits; then
	// they go.
	from = a.logs.mark()
	closed := time.Now()
	if err := chromedp.FromContext(a.browser).Browser.Process().Kill(); err != nil {
		t.Fatalf("kill browser A: %v", err)
	}
	<-a.browser.Done() // chromedp lost the browser
	if _, err := a.logs.await(ctx, from, "shim: ", "disconnected from host", fmt.Sprintf("host-%d.", pidA)); err != nil {
		t.Fatalf("the agent's shim did not see A's host go: %v", err)
	}
	waited := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := a.client.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "to A, gone"}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		waited <- res
	}()
	callIn(b, "echo_2", "A closed")
	// A's tools cannot have gone in less than the grace since it closed.
	inGrace := time.Since(closed) < shim.HostGrace
	during := listTools()
	if inGrace && !slices.Equal(sortedKeys(during), sortedKeys(before)) {
		t.Errorf("within %v of A closing, its grace, the agent's tools are %v, want them as before: %v", shim.HostGrace, sortedKeys(during), sortedKeys(before))
	}
	if !inGrace {
		t.Logf("the checks after A closed came %v after it, past its grace: they could not tell that A's tools stayed", time.Since(closed))
	}
	if got := tabsAt(a.listTabs(), "?in=b"); len(got) != 1 {
		t.Errorf("A closed and list_tabs lists %+v for B's tab", got)
	}

	// After the grace: A's tools go with a tools/list_changed (waitTools
	// lists again only when notified), B's stay.
	after := a.waitTools("A's tools to go", func(m map[string]*mcp.Tool) bool { return m["echo"] == nil })
	if gone := time.Since(closed); gone < shim.HostGrace {
		t.Errorf("A's tools went %v after A closed, before its grace of %v ended", gone, shim.HostGrace)
	}
	if want := slices.Sorted(slices.Values(slices.Concat(toolsB, bridgeTools))); !slices.Equal(sortedKeys(after), want) {
		t.Errorf("after A's grace the agent's tools are %v, want B's and the bridge's: %v", sortedKeys(after), want)
	}
	res := <-waited
	if !res.IsError || !strings.Contains(text(res), "did not come back") || res.Meta["dev.webmcp/pageRan"] != "no" {
		t.Errorf("a call to A's echo during A's grace = %s (_meta %v), want an error that says A did not come back and the page did not run it", text(res), res.Meta)
	}
	callIn(b, "echo_2", "after A's grace")
	if got := a.listTabs(); len(tabsAt(got, "?in=a")) != 0 || len(tabsAt(got, "?in=b")) != 1 {
		t.Errorf("after A closed list_tabs lists %+v, want B's tabs only", got)
	}
}
