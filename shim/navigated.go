package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

// A call that navigates its page (a declarative form that submits to
// another page, the commonest declarative pattern) has no answer from the
// page: the new page is its answer. The shim follows the tab to the new
// page and tells the agent where the call led: the URL, the title and the
// tools of the new page, and its UI context when the site is allowed.

// NavigationWait bounds how long a call that navigated its tab waits for
// the new page and its tools (never past the call's --timeout).
const NavigationWait = 5 * time.Second

// navigationSettle is how long the new page's tools must stay the same
// before they are taken as its tools: a page registers them one by one
// as it loads.
const navigationSettle = 300 * time.Millisecond

// MetaNavigated is the _meta key of a call's result that holds where the
// call navigated its tab: a NavigatedPage.
const MetaNavigated = protocol.MetaPrefix + "navigated"

// NavigatedPage is the page a call led its tab to.
type NavigatedPage struct {
	TabID int `json:"tabId"`
	// URL and Title are empty for a site the user has not allowed;
	// Origin says which site it is.
	URL     string `json:"url,omitempty"`
	Title   string `json:"title,omitempty"`
	Origin  string `json:"origin,omitempty"`
	Allowed bool   `json:"allowed"`
	// Tools are the MCP names of the new page's tools.
	Tools []string `json:"tools"`
	// Context is the new page's UI context (its providers' summaries and
	// data), when the site is allowed and the page has any.
	Context []protocol.ProviderSnapshot `json:"context,omitempty"`
	// Settled is false when the new page had not finished bringing its
	// tools within NavigationWait.
	Settled bool `json:"settled"`
}

// tabNow is tab's entry in c's state, and the names of its page tools.
func tabNow(c *hostlink.Conn, tab int) (protocol.Tab, []protocol.ToolRef, bool) {
	snap := c.Snapshot()
	var refs []protocol.ToolRef
	for _, t := range snap.Tools {
		if t.TabID == tab {
			refs = append(refs, t.Ref())
		}
	}
	slices.SortFunc(refs, func(a, b protocol.ToolRef) int {
		if a.FrameID != b.FrameID {
			return a.FrameID - b.FrameID
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, t := range snap.Tabs {
		if t.ID == tab {
			return t, refs, true
		}
	}
	return protocol.Tab{}, refs, false
}

// followNavigation waits, at most NavigationWait and within ctx, until
// tab of c shows a new document (its URL changed, or the tool that ran is
// gone from it) whose tools have stayed the same for navigationSettle, and
// returns that page. before is the tab's URL when the call began. loaded
// says that the extension answered once the new document had loaded,
// after its tools: the page is as the tab shows it once it has moved.
func (s *Server) followNavigation(ctx context.Context, c *hostlink.Conn, ran protocol.ToolRef, before string, loaded bool) *NavigatedPage {
	ctx, cancel := context.WithTimeout(ctx, NavigationWait)
	defer cancel()
	moved := false
	var last []protocol.ToolRef
	var quiet <-chan time.Time
	for {
		changed := s.changes.wait()
		tab, refs, ok := tabNow(c, ran.TabID)
		if !ok {
			break // the tab closed
		}
		if !moved && (tab.URL != before || !slices.Contains(refs, ran)) {
			moved = true
		}
		if moved && loaded {
			return s.navigatedPage(c, ran.TabID, true)
		}
		if moved && len(refs) > 0 && !slices.Equal(refs, last) {
			last = refs
			quiet = time.After(navigationSettle)
		}
		select {
		case <-changed:
			continue
		case <-quiet:
			return s.navigatedPage(c, ran.TabID, true)
		case <-ctx.Done():
		}
		break
	}
	return s.navigatedPage(c, ran.TabID, false)
}

// navigatedPage is tab of c as it is now.
func (s *Server) navigatedPage(c *hostlink.Conn, tab int, settled bool) *NavigatedPage {
	t, refs, _ := tabNow(c, tab)
	names := make([]string, 0, len(refs))
	for _, r := range refs {
		names = append(names, r.Name)
	}
	np := &NavigatedPage{TabID: tab, URL: t.URL, Title: t.Title, Origin: t.Origin, Allowed: t.Allowed, Settled: settled}
	np.Tools = s.tabTools(c, tab, names)
	if np.Tools == nil {
		np.Tools = []string{}
	}
	return np
}

// navigatedResult is the result of the call of tool name (ran: the page
// tool that ran, in c) answered "navigated": the call ran and navigated
// its tab (e.Ran), or the tab navigated away while it ran. Either way the
// agent learns where the tab is now.
//
// out is what the extension gave with the answer of a call that ran: the
// output Chromium gives such a call (the new document's
// application/ld+json data, a JSON array), sent once that document had
// loaded. The result then starts with it, as the browser's own agent gets
// it, and goes on with where the tab went.
func (s *Server) navigatedResult(ctx context.Context, c *hostlink.Conn, name string, ran protocol.ToolRef, before string, e *protocol.Error, out json.RawMessage) *mcp.CallToolResult {
	out = bytes.TrimSpace(out)
	loaded := e.Ran && len(out) > 0 && out[0] == '['
	np := s.followNavigation(ctx, c, ran, before, loaded)
	if np.Allowed && ctx.Err() == nil {
		params := json.RawMessage(fmt.Sprintf(`{"tabId":%d}`, np.TabID))
		if fresh, _ := s.sample(ctx, c, params, SampleBudget); fresh != nil && fresh.TabID == np.TabID {
			for _, p := range fresh.Providers {
				if p.Note == "" {
					np.Context = append(np.Context, p)
				}
			}
		}
	}
	where := describeNavigatedPage(np)
	var res *mcp.CallToolResult
	if e.Ran {
		// The call ran; its action led to the new page, which is its
		// answer: a result, not an error.
		res = results.Text(fmt.Sprintf("Tool %s ran and navigated its tab to %s.", name, where))
		if loaded && np.Allowed {
			// The browser's answer first: what the new document says
			// of itself (its structured data), then where it is.
			res.Content = append(results.FromOutput(out).Content, res.Content...)
		}
		res.Meta = mcp.Meta{}
	} else {
		res = results.Failure(protocol.CodeNavigated, results.MaybeRan, "The tab of tool %s navigated away while the call ran; it now shows %s", name, where)
	}
	res.Meta[MetaNavigated] = np
	return res
}

// describeNavigatedPage says, in one sentence without its final period,
// what the tab shows now.
func describeNavigatedPage(np *NavigatedPage) string {
	var b strings.Builder
	if !np.Allowed {
		fmt.Fprintf(&b, "a page of %s, a site the user has not allowed: its URL, title and tools stay in the browser until the user allows it", orUnknown(np.Origin))
		return b.String()
	}
	fmt.Fprintf(&b, "%s", orUnknown(np.URL))
	// The page's title as a provenance quotes it (plainTitle): it cannot
	// close the quotes and write words that read as the bridge's.
	if title := textcut.Runes(plainTitle(np.Title), maxTitle); title != "" {
		b.WriteString(` ("` + title + `")`)
	}
	switch {
	case len(np.Tools) > 0:
		fmt.Fprintf(&b, ", which offers the tools %s", strings.Join(np.Tools, ", "))
		if !np.Settled {
			b.WriteString(" so far (list tools again for the rest)")
		}
	case np.Settled:
		b.WriteString(", which offers no tools")
	default:
		fmt.Fprintf(&b, ", which brought no tools within %s (list tools again later)", results.Seconds(NavigationWait))
	}
	if len(np.Context) > 0 {
		var sums []string
		for _, p := range np.Context {
			if p.Summary != "" {
				sums = append(sums, fmt.Sprintf("%s: %s", p.ID, p.Summary))
			}
		}
		if len(sums) > 0 {
			fmt.Fprintf(&b, "; its UI context: %s", strings.Join(sums, "; "))
		}
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown page"
	}
	return s
}
