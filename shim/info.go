package shim

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
)

// TabInfo describes one browser tab for list_tabs and the CLI.
type TabInfo struct {
	Browser string `json:"browser,omitempty"` // e.g. "Chromium 156.0.8078.73"
	HostPID int    `json:"hostPid,omitempty"` // the browser's webmcp-host
	ID      int    `json:"id"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Origin  string `json:"origin"`
	Allowed bool   `json:"allowed"`
	Active  bool   `json:"active"`
	Focused bool   `json:"focused,omitempty"`
	Tools   int    `json:"tools"` // tools offered to agents (0 unless allowed)
}

// HostStatus describes one connected host for the CLI's status.
type HostStatus struct {
	Socket  string            `json:"socket"`
	PID     int               `json:"pid,omitempty"`
	Version string            `json:"version,omitempty"` // the host's version; "" from a host older than versions in its hello
	Session string            `json:"session,omitempty"`
	Browser *protocol.Browser `json:"browser,omitempty"` // nil while the browser has not said hello
	Tabs    []TabInfo         `json:"tabs"`
	Tools   int               `json:"tools"` // tools offered to agents
}

// ToolInfo describes one MCP tool of the shim for the CLI's tools.
type ToolInfo struct {
	Name        string `json:"name"`               // the MCP name
	Bridge      bool   `json:"bridge,omitempty"`   // a tool of the bridge, not of a page
	Provenance  string `json:"provenance"`         // "[localhost:8080 · tab 12 "Trace viewer"]", or "[WebMCP bridge]"
	PageName    string `json:"pageName,omitempty"` // the page's own name
	Origin      string `json:"origin,omitempty"`   // the registering frame's origin
	TabID       int    `json:"tabId,omitempty"`
	FrameID     int    `json:"frameId,omitempty"`
	TabTitle    string `json:"tabTitle,omitempty"`
	Host        string `json:"host,omitempty"` // the host's socket
	Title       string `json:"title,omitempty"`
	Description string `json:"description"` // as the agent sees it: provenance, the page's description, notes
	// PageDescription is the page's own description of the tool, as the
	// page gave it (trimmed), without the provenance and notes the agent's
	// Description adds.
	PageDescription string               `json:"pageDescription,omitempty"`
	InputSchema     json.RawMessage      `json:"inputSchema"`
	Annotations     *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// Tools lists the shim's MCP tools, bridge tools first, then page tools by
// name.
func (s *Server) Tools() []ToolInfo {
	var out []ToolInfo
	for _, bt := range bridgeTools() {
		schema, _ := json.Marshal(bt.Tool.InputSchema)
		out = append(out, ToolInfo{
			Name:        bt.Tool.Name,
			Bridge:      true,
			Provenance:  "[WebMCP bridge]",
			Title:       bt.Tool.Title,
			Description: bt.Tool.Description,
			InputSchema: schema,
			Annotations: bt.Tool.Annotations,
		})
	}
	s.mu.Lock()
	var pages []ToolInfo
	for _, pt := range s.tools {
		schema, _ := json.Marshal(pt.mcpTool.InputSchema)
		pages = append(pages, ToolInfo{
			Name:            pt.name,
			Provenance:      Provenance(pt.tool, pt.tab),
			PageName:        pt.tool.Name,
			Origin:          pt.tool.Origin,
			TabID:           pt.tool.TabID,
			FrameID:         pt.tool.FrameID,
			TabTitle:        pt.tab.Title,
			Host:            pt.conn.Path(),
			Title:           pt.mcpTool.Title,
			Description:     pt.mcpTool.Description,
			PageDescription: strings.TrimSpace(pt.tool.Description),
			InputSchema:     schema,
			Annotations:     pt.mcpTool.Annotations,
		})
	}
	s.mu.Unlock()
	slices.SortFunc(pages, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return append(out, pages...)
}

// Tabs lists the tabs of every connected browser, by host, then tab id.
func (s *Server) Tabs() []TabInfo {
	var out []TabInfo
	for _, h := range s.Hosts() {
		out = append(out, h.Tabs...)
	}
	if out == nil {
		out = []TabInfo{}
	}
	return out
}

// Hosts describes the connected hosts, in the order they were connected.
func (s *Server) Hosts() []HostStatus {
	var out []HostStatus
	for _, c := range s.pool.Conns() {
		out = append(out, hostStatus(c))
	}
	return out
}

func hostStatus(c *hostlink.Conn) HostStatus {
	snap := c.Snapshot()
	b := c.Browser()
	hs := HostStatus{Socket: c.Path(), PID: c.Host().PID, Version: c.Host().Version, Session: c.Session(), Browser: b, Tabs: []TabInfo{}}
	counts := map[int]int{}
	for _, t := range snap.Tools {
		counts[t.TabID]++
	}
	for _, t := range snap.Tabs {
		n := 0
		if t.Allowed {
			n = counts[t.ID]
		}
		hs.Tools += n
		hs.Tabs = append(hs.Tabs, TabInfo{
			Browser: browserName(b),
			HostPID: hs.PID,
			ID:      t.ID,
			Title:   t.Title,
			URL:     t.URL,
			Origin:  t.Origin,
			Allowed: t.Allowed,
			Active:  t.Active,
			Focused: t.Focused,
			Tools:   n,
		})
	}
	return hs
}

// browserName is "Chromium 156.0.8078.73", or "" for a browser that has not
// said hello.
func browserName(b *protocol.Browser) string {
	if b == nil {
		return ""
	}
	return strings.TrimSpace(b.Name + " " + b.Version)
}
