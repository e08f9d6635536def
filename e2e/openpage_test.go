package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openedPage is what open_page answers.
type openedPage struct {
	TabID int      `json:"tabId"`
	URL   string   `json:"url"`
	Title string   `json:"title"`
	Tools []string `json:"tools"`
}

// tabIDs lists the ids of list_tabs whose url contains part.
func (b *bridge) tabIDs(part string) []int {
	b.t.Helper()
	var out struct {
		Tabs []struct {
			ID  int    `json:"id"`
			URL string `json:"url"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(text(b.call(context.Background(), "list_tabs", map[string]any{}))), &out); err != nil {
		b.t.Fatal(err)
	}
	var ids []int
	for _, t := range out.Tabs {
		if strings.Contains(t.URL, part) {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// TestOpenPage: an agent opens the demo app on an allowed site without
// anyone being asked, and its tools are callable through the same session;
// other schemes are refused; focus_tab moves what get_ui_context describes;
// close_tab closes only the tab the agent opened.
func TestOpenPage(t *testing.T) {
	b := start(t, modes[0])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard only
	defer cancel()
	// The user's own tab (its tools also say that the browser is there).
	mine, _ := b.open(demoURL("localhost", "/?mine"))
	focus(t, mine)
	eval[any](t, mine, `window.demo.ready`)
	b.waitTool("select_slice")

	res := b.call(ctx, "open_page", map[string]any{"url": demoURL("localhost", "/?opened")})
	var op openedPage
	if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil {
		t.Fatalf("open_page = %s", text(res))
	}
	if op.TabID <= 0 || !strings.Contains(op.URL, "?opened") || !contains(op.Tools, "select_slice_2") || !contains(op.Tools, "get_selection_2") {
		t.Fatalf("open_page = %+v, want the new tab with the demo's tools", op)
	}
	if res := b.call(ctx, "get_selection_2", map[string]any{}); res.IsError {
		t.Errorf("a tool of the opened page: %s", text(res))
	}

	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "data:text/html,<h1>hi"} {
		if res := b.call(ctx, "open_page", map[string]any{"url": bad}); !res.IsError || !strings.Contains(text(res), "only web pages") {
			t.Errorf("open_page %s = %s, want it refused", bad, text(res))
		}
	}

	// focus_tab moves between the user's tab and the opened one.
	ids := b.tabIDs("?mine")
	if len(ids) != 1 {
		t.Fatalf("list_tabs has %v for the user's tab", ids)
	}
	user := ids[0]
	if res := b.call(ctx, "focus_tab", map[string]any{"tabId": user}); res.IsError {
		t.Fatalf("focus_tab: %s", text(res))
	}
	if c := b.getUIContext(); c.Tab == nil || c.Tab.ID != user {
		t.Fatalf("get_ui_context describes %+v, want the user's tab %d", c.Tab, user)
	}

	// background: true opens a tab that does not take the user's place
	// (TRUST item 17): it is not active, and the user's tab stays the one
	// whose context agents get.
	res = b.call(ctx, "open_page", map[string]any{"url": demoURL("localhost", "/?behind"), "background": true})
	var bg openedPage
	if err := json.Unmarshal([]byte(text(res)), &bg); res.IsError || err != nil || bg.TabID <= 0 {
		t.Fatalf("open_page in the background = %s", text(res))
	}
	var listed struct {
		Tabs []struct {
			ID     int  `json:"id"`
			Active bool `json:"active"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(text(b.call(ctx, "list_tabs", map[string]any{}))), &listed); err != nil {
		t.Fatalf("list_tabs: %v", err)
	}
	found := false
	for _, lt := range listed.Tabs {
		switch lt.ID {
		case bg.TabID:
			found = true
			if lt.Active {
				t.Errorf("the tab opened in the background is the active tab of its window")
			}
		case user:
			if !lt.Active {
				t.Errorf("the user's tab is no longer active after open_page in the background")
			}
		}
	}
	if !found {
		t.Fatalf("list_tabs lacks the tab opened in the background (%d): %s", bg.TabID, text(b.call(ctx, "list_tabs", map[string]any{})))
	}
	if c := b.getUIContext(); c.Tab == nil || c.Tab.ID != user {
		t.Errorf("after open_page in the background get_ui_context describes %+v, want the user's tab %d", c.Tab, user)
	}
	if res := b.call(ctx, "close_tab", map[string]any{"tabId": bg.TabID}); res.IsError {
		t.Errorf("close_tab of the tab opened in the background: %s", text(res))
	}
	if res := b.call(ctx, "focus_tab", map[string]any{"tabId": op.TabID}); res.IsError {
		t.Fatalf("focus_tab: %s", text(res))
	}
	if c := b.getUIContext(); c.Tab == nil || c.Tab.ID != op.TabID {
		t.Errorf("after focus_tab get_ui_context describes %+v, want tab %d", c.Tab, op.TabID)
	}

	if res := b.call(ctx, "close_tab", map[string]any{"tabId": user}); !res.IsError || !strings.Contains(text(res), "only the user closes it") {
		t.Errorf("close_tab of the user's tab = %s", text(res))
	}
	if res := b.call(ctx, "close_tab", map[string]any{"tabId": op.TabID}); res.IsError {
		t.Fatalf("close_tab of the opened tab: %s", text(res))
	}
	b.waitTools("the opened tab's tools go", func(m map[string]*mcp.Tool) bool {
		for _, name := range op.Tools {
			if m[name] != nil {
				return false
			}
		}
		return true
	})
	if ids := b.tabIDs("?opened"); len(ids) != 0 {
		t.Errorf("the opened tab is still listed: %v", ids)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOpenPageAsks: a site the user has not allowed (127.0.0.2) waits for
// the user's answer in the consent window: Deny leaves no tab; Allow and
// add this site opens it, and the site is then allowed (its tools reach the
// agent).
func TestOpenPageAsks(t *testing.T) {
	b := start(t, modes[0])
	mine, _ := b.open(demoURL("localhost", "/?mine"))
	eval[any](t, mine, `window.demo.ready`)
	b.waitTool("select_slice")
	seen := map[target.ID]bool{}
	page := blockedOrigin + "/?asked"

	ch := callAsync(b.client, "open_page", map[string]any{"url": page})
	b.answerConsent(seen, "Deny")
	if got := outcome(t, ch); !strings.HasPrefix(got, "ISERROR") || !strings.Contains(got, "declined to open "+blockedOrigin) {
		t.Fatalf("open_page after Deny = %q", got)
	}
	if ids := b.tabIDs("?asked"); len(ids) != 0 {
		t.Errorf("Deny left tabs %v", ids)
	}

	ch = callAsync(b.client, "open_page", map[string]any{"url": page})
	b.answerConsent(seen, "Allow and add this site")
	got := outcome(t, ch)
	var op openedPage
	if !strings.HasPrefix(got, "OK ") || json.Unmarshal([]byte(strings.TrimPrefix(got, "OK ")), &op) != nil || op.TabID <= 0 {
		t.Fatalf("open_page after Allow and add = %q", got)
	}
	if len(op.Tools) == 0 {
		t.Errorf("the newly allowed site brought no tools: %+v", op)
	}
	var tabs struct {
		Tabs []struct {
			ID      int  `json:"id"`
			Allowed bool `json:"allowed"`
		} `json:"tabs"`
	}
	listed := text(b.call(context.Background(), "list_tabs", map[string]any{}))
	if err := json.Unmarshal([]byte(listed), &tabs); err != nil {
		t.Fatalf("list_tabs: %v in %q", err, listed)
	}
	found := false
	for _, tab := range tabs.Tabs {
		if tab.ID == op.TabID {
			found = true
			if !tab.Allowed {
				t.Errorf("tab %d of %s is not allowed after Allow and add", tab.ID, blockedOrigin)
			}
		}
	}
	if !found {
		t.Errorf("list_tabs lacks the opened tab %d: %s", op.TabID, listed)
	}
}
