package e2e

// The focused tab after a consent window: the window takes the focus while
// it asks, and when it closes the tab the user was on is the focused one
// again, for get_ui_context, `webmcp-shim context` and `pin`.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// setAsk sets origin's ask-before-acting setting (acting, consequential,
// never) from a page of the extension, as its own pages do.
func (b *bridge) setAsk(origin, ask string) {
	b.t.Helper()
	page := b.openUI("ui/activity.html")
	got := eval[string](b.t, page, `chrome.runtime.sendMessage({type: "siteSettings.set", origin: `+mustJSON(origin)+`, ask: `+mustJSON(ask)+`}).then(r => r.ok ? r.value.ask : r.error)`)
	if got != ask {
		b.t.Fatalf("set ask %s for %s: %s", ask, origin, got)
	}
}

// waitGone waits until target id is gone.
func (b *bridge) waitGone(id target.ID) {
	b.t.Helper()
	b.waitTargetsGone(fmt.Sprintf("target %s", id), func(in *target.Info) bool { return in.TargetID == id })
}

// waitTargetsGone waits, woken by the browser's target events, until no
// target matches; what names them in a failure.
func (b *bridge) waitTargetsGone(what string, match func(*target.Info) bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.browser, 20*time.Second)
	defer cancel()
	if err := awaitTargets(ctx, func(infos []*target.Info) bool { return !slices.ContainsFunc(infos, match) }); err != nil {
		b.t.Fatalf("%s never went away (%v)", what, err)
	}
}

// waitContextTab waits until the webmcp://ui-context resource (subscribed
// to) names a tab whose URL contains want, woken by resources/updated.
func (b *bridge) waitContextTab(ctx context.Context, want string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var last string
	for {
		res, err := b.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: contextURI})
		if err != nil {
			b.t.Fatalf("read %s: %v", contextURI, err)
		}
		if len(res.Contents) > 0 {
			last = res.Contents[0].Text
			if strings.Contains(last, `"url":"`+want) {
				return
			}
		}
		select {
		case <-b.updated:
		case <-ctx.Done():
			b.t.Fatalf("the UI context never named the tab of %s again; last read: %s", want, last)
		}
	}
}

// After a consent window closes, the tab the user was on is the focused
// tab again: `webmcp-shim context` prints it and `pin` pins its provider.
func TestContextAfterConsent(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		demo := b.openDemo("localhost")
		click(t, demo, "3")
		b.getUIContext() // the click has reached the extension
		b.setAsk(localOrigin(), "acting")
		focus(t, demo)
		ctx := context.Background()
		if err := b.client.Subscribe(ctx, &mcp.SubscribeParams{URI: contextURI}); err != nil {
			t.Fatalf("subscribe to %s: %v", contextURI, err)
		}
		b.waitContextTab(ctx, localOrigin())

		seen := map[target.ID]bool{}
		ch := callAsync(b.client, "select_slice", map[string]any{"id": 5})
		id := b.answerConsent(seen, "Allow")
		if got := outcome(t, ch); !strings.HasPrefix(got, "OK") {
			t.Fatalf("select_slice after Allow: %s", got)
		}
		b.waitGone(id)

		b.waitContextTab(ctx, localOrigin())
		out, err := b.shimCLI("context")
		if err != nil || !strings.Contains(out, localOrigin()) || !strings.Contains(out, selectionProvider) {
			t.Errorf("after the consent window closed, webmcp-shim context printed (err %v):\n%s", err, out)
		}
		if out, err := b.shimCLI("pin", selectionProvider); err != nil {
			t.Errorf("after the consent window closed, webmcp-shim pin failed (%v): %s\n%s", err, out, b.logs.String())
		}
	})
}
