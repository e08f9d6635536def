package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// ToolsWait bounds how long OpenPage waits, after the browser answered, for
// the new tab's tools to reach the agent as MCP tools.
const ToolsWait = 5 * time.Second

// OpenedPage is what OpenPage opened.
type OpenedPage struct {
	TabID   int    `json:"tabId"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Browser string `json:"browser,omitempty"`
	HostPID int    `json:"hostPid,omitempty"`
	// Tools are the MCP names of the tools the page brought.
	Tools []string `json:"tools"`
	// Note says why Tools is empty, when it is.
	Note string `json:"note,omitempty"`
	// CloseKey is set for a client without a session (MCP 2026-07-28):
	// close_tab closes the tab for such a client only with it.
	CloseKey string `json:"closeKey,omitempty"`
}

// CheckPageURL accepts an http or https URL and returns it parsed; any
// other scheme (file:, javascript:, chrome:, data:, …) is refused.
func CheckPageURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%q is not an http(s) URL: only web pages (http:// or https://) may be opened", raw)
	}
	return u, nil
}

// OpenPage opens pageURL in a new tab of a browser: the one named by
// browser (a host pid, or the start of a browser name as list_tabs shows
// it), else the one whose tab the user looks at, else the first. With no
// browser connected it waits for one (BrowserWait). A site the user has
// not allowed waits for the user's answer in the browser. It returns once
// the page's tools are MCP tools (or ToolsWait passed); all of it within
// the call's --timeout.
func (s *Server) OpenPage(ctx context.Context, pageURL string, background bool, browser string) (*OpenedPage, error) {
	u, err := CheckPageURL(pageURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	// The agent's first call may come as the browser starts; and a shim
	// that just started may not have met every browser yet.
	s.awaitBrowser(ctx)
	s.awaitHosts(ctx, InstructionsWait)
	c, err := s.pickBrowser(browser)
	if err != nil {
		return nil, err
	}
	params, _ := json.Marshal(map[string]any{"url": u.String(), "background": background})
	out, err := c.Request(ctx, protocol.MethodOpenPage, params)
	if err != nil {
		return nil, err
	}
	var got protocol.OpenPageAnswer
	if err := json.Unmarshal(out, &got); err != nil {
		return nil, fmt.Errorf("the browser answered openPage with something else (%v): %.200s", err, out)
	}
	op := &OpenedPage{TabID: got.TabID, URL: got.URL, Title: got.Title, HostPID: c.Host().PID, Tools: []string{}}
	if isStateless(ctx) {
		op.CloseKey = s.closeKeys.issue(got.TabID)
	}
	if b := c.Browser(); b != nil {
		op.Browser = strings.TrimSpace(b.Name + " " + b.Version)
	}
	if len(got.Tools) == 0 {
		op.Note = "the page offers no tools (yet), or its site is not allowed: its tools reach agents once the user allows the site"
		return op, nil
	}
	op.Tools = s.awaitTabTools(ctx, c, got.TabID, got.Tools, ToolsWait)
	if len(op.Tools) < len(got.Tools) {
		op.Note = "some of the page's tools have not reached the agent yet: list tools again"
	}
	return op, nil
}

// awaitTabTools waits, at most max, until every page tool in names of tab
// is an MCP tool, and returns the MCP names it has then.
func (s *Server) awaitTabTools(ctx context.Context, c *hostlink.Conn, tab int, names []string, max time.Duration) []string {
	ctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	for {
		changed := s.changes.wait()
		have := s.tabTools(c, tab, names)
		if len(have) == len(names) {
			return have
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return have
		}
	}
}

// tabTools is the MCP names of the page tools in names of tab in c's
// browser, sorted.
func (s *Server) tabTools(c *hostlink.Conn, tab int, names []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, pt := range s.tools {
		if pt.conn == c && pt.tool.TabID == tab && slices.Contains(names, pt.tool.Name) {
			out = append(out, pt.name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pickBrowser finds the browser that browser names, or the focused one.
func (s *Server) pickBrowser(browser string) (*hostlink.Conn, error) {
	conns, views := s.hostViews()
	if len(conns) == 0 {
		return nil, ErrNoBrowser
	}
	if browser = strings.TrimSpace(browser); browser != "" {
		pid, _ := strconv.Atoi(browser)
		var names []string
		var named []*hostlink.Conn
		for _, c := range conns {
			name := browserName(c.Browser())
			if c.Host().PID == pid {
				return c, nil
			}
			if name != "" && strings.HasPrefix(strings.ToLower(name), strings.ToLower(browser)) {
				named = append(named, c)
			}
			names = append(names, fmt.Sprintf("%s (hostPid %d)", name, c.Host().PID))
		}
		switch {
		case len(named) == 1:
			return named[0], nil
		case len(named) > 1:
			// Two browsers of one name (two profiles, or two copies of one
			// browser): the agent says which by its host's pid.
			return nil, &protocol.Error{Code: results.CodeInvalidArguments, Message: fmt.Sprintf("%d connected browsers are %q: name one by its hostPid; the browsers are: %s", len(named), browser, strings.Join(names, ", "))}
		}
		return nil, &protocol.Error{Code: results.CodeInvalidArguments, Message: fmt.Sprintf("no connected browser is %q; the browsers are: %s", browser, strings.Join(names, ", "))}
	}
	if f, ok := uicontext.FindFocus(views); ok {
		return conns[f.Host], nil
	}
	return conns[0], nil
}

// tabRequest sends method for tab to the browser that has it, or to the
// one browser names (as open_page's argument does), within the call's
// --timeout; with no browser connected it waits for one first
// (BrowserWait). Tab ids are each browser's own: a tab id that several
// connected browsers have is refused without browser.
func (s *Server) tabRequest(ctx context.Context, method string, tab int, browser string) error {
	ctx, cancel := s.callContext(ctx)
	defer cancel()
	s.awaitBrowser(ctx)
	conns := s.pool.Conns()
	if len(conns) == 0 {
		return ErrNoBrowser
	}
	if strings.TrimSpace(browser) != "" {
		c, err := s.pickBrowser(browser)
		if err != nil {
			return err
		}
		conns = []*hostlink.Conn{c}
	}
	var have []*hostlink.Conn
	var where []string
	for _, c := range conns {
		for _, t := range c.Snapshot().Tabs {
			if t.ID == tab {
				have = append(have, c)
				where = append(where, fmt.Sprintf("%s (hostPid %d)", browserName(c.Browser()), c.Host().PID))
				break
			}
		}
	}
	switch {
	case len(have) == 1:
		params, _ := json.Marshal(map[string]int{"tabId": tab})
		_, err := have[0].Request(ctx, method, params)
		return err
	case len(have) > 1:
		return &protocol.Error{Code: results.CodeInvalidArguments, Message: fmt.Sprintf("tab %d is open in %d browsers: %s; say which with browser (its hostPid from list_tabs)", tab, len(have), strings.Join(where, ", "))}
	case strings.TrimSpace(browser) != "":
		return &protocol.Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no tab %d in the browser of hostPid %d; list_tabs shows the tabs", tab, conns[0].Host().PID)}
	}
	return &protocol.Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no tab %d in any connected browser; list_tabs shows the tabs", tab)}
}

// FocusTab brings tab (of a site the user allowed) to the front of its
// window, and the window to the front: the user sees what the agent is
// about to do, and click-to-context follows it. browser names the browser
// of the tab, or is empty (tabRequest).
func (s *Server) FocusTab(ctx context.Context, tab int, browser string) error {
	return s.tabRequest(ctx, protocol.MethodFocusTab, tab, browser)
}

// CloseTab closes tab, which must be one OpenPage opened for this shim.
// browser names the browser of the tab, or is empty (tabRequest).
func (s *Server) CloseTab(ctx context.Context, tab int, browser string) error {
	return s.tabRequest(ctx, protocol.MethodCloseTab, tab, browser)
}

// tabError says what a failed tab request means to an agent.
func tabError(err error) (code, text string) {
	var we *protocol.Error
	switch {
	case errors.As(err, &we):
		return we.Code, we.Message
	case errors.Is(err, ErrNoBrowser):
		return protocol.CodeNoBrowser, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return protocol.CodeTimeout, "no answer in time (the user may not have answered): " + err.Error()
	}
	return protocol.CodeInternal, err.Error()
}
