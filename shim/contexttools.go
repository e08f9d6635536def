package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// ContextTool is a page tool of the focused tab that can be sampled as UI
// context (read-only, no required argument), as the extension reports it,
// with the name agents call it by.
type ContextTool struct {
	protocol.ContextTool
	// MCPName is the tool's name for agents; it differs from Name only on
	// a clash (a page's get_ui_context is get_ui_context_2, beside the
	// bridge's own).
	MCPName string `json:"mcpName,omitempty"`
}

// ContextTools lists the page tools of the focused tab that can be sampled
// as UI context, and whether each is ("on", "off", or "changed": turned on
// for a definition the page has changed since). Failures are ErrNoBrowser,
// ErrNoFocus, or the extension's *protocol.Error.
func (s *Server) ContextTools(ctx context.Context) (tabID int, tools []ContextTool, err error) {
	c, tab, err := s.focusedConn()
	if err != nil {
		return 0, nil, err
	}
	b, err := json.Marshal(map[string]int{"tabId": tab})
	if err != nil {
		return 0, nil, err
	}
	out, err := c.Request(ctx, protocol.MethodContextTools, b)
	if err != nil {
		return 0, nil, err
	}
	var r struct {
		TabID int                    `json:"tabId"`
		Tools []protocol.ContextTool `json:"tools"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, nil, fmt.Errorf("the browser answered the contextTools request with %.200s (%v)", out, err)
	}
	key := s.browserKey(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range r.Tools {
		ct := ContextTool{ContextTool: t}
		if pt := s.tools[toolKey{key, protocol.ToolRef{TabID: r.TabID, FrameID: t.FrameID, Name: t.Name}}]; pt != nil && pt.name != t.Name {
			ct.MCPName = pt.name
		}
		tools = append(tools, ct)
	}
	return r.TabID, tools, nil
}

// SetContextTool turns a page tool of the focused tab on or off as UI
// context: name is its page name or the name agents call it by. It returns
// the tool's state after. This is the person's choice, for the local CLI:
// no MCP tool calls it.
func (s *Server) SetContextTool(ctx context.Context, name string, on bool) (state string, err error) {
	_, tools, err := s.ContextTools(ctx)
	if err != nil {
		return "", err
	}
	var match []ContextTool
	var names []string
	for _, t := range tools {
		if t.Name == name || t.MCPName == name {
			match = append(match, t)
		}
		n := t.Name
		if t.MCPName != "" {
			n = t.MCPName
		}
		names = append(names, n)
	}
	switch {
	case len(match) == 0 && len(names) == 0:
		return "", fmt.Errorf("the focused tab has no tool that can be sent with prompts (only read-only tools without required arguments can): %s is not one", name)
	case len(match) == 0:
		return "", fmt.Errorf("the focused tab has no tool %q that can be sent with prompts; these can: %v", name, names)
	case len(match) > 1:
		return "", fmt.Errorf("%d frames of the focused tab have a tool %q; turn it on or off in the extension's panel", len(match), name)
	}
	c, tab, err := s.focusedConn()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"tabId": tab, "frameId": match[0].FrameID, "name": match[0].Name, "on": on})
	if err != nil {
		return "", err
	}
	out, err := c.Request(ctx, protocol.MethodSetContextTool, b)
	if err != nil {
		return "", err
	}
	var r struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return "", fmt.Errorf("the browser answered the setContextTool request with %.200s (%v)", out, err)
	}
	return r.State, nil
}

// focusedConn is the host of the focused tab, and the tab's id.
func (s *Server) focusedConn() (*hostlink.Conn, int, error) {
	conns, views := s.hostViews()
	if len(conns) == 0 {
		return nil, 0, ErrNoBrowser
	}
	f, ok := uicontext.FindFocus(views)
	if !ok {
		return nil, 0, ErrNoFocus
	}
	if !f.Tab.Allowed {
		return nil, 0, errors.New("the focused tab's site is not allowed: allow it in the WebMCP bridge extension first, or focus another tab")
	}
	return conns[f.Host], f.Tab.ID, nil
}
