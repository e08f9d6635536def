package shim

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// openPageTool is open_page: a new tab, with the user's consent for a site
// not allowed.
func openPageTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "open_page",
			Title: "Open a web page",
			Description: "[WebMCP bridge] Opens an http(s) URL in a new tab of the browser the user is using (never an existing tab) " +
				"and waits for the page's WebMCP tools, which then become your tools. A site the user has allowed opens at once; " +
				"any other site asks the user first (a declined request is an error: do not retry unless the user says so). " +
				"browser: a hostPid or browser name from list_tabs, when several browsers are connected (a name that several share is refused: give the hostPid). " +
				"Answers with the tab's id, url, title and the names of the tools it brought.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"url":{"type":"string","description":"an http:// or https:// URL"},` +
				`"background":{"type":"boolean","description":"open the tab without switching to it"},` +
				`"browser":{"type":"string","description":"hostPid or browser name from list_tabs"}},"required":["url"]}`),
			Annotations: &mcp.ToolAnnotations{
				Title:           "Open a web page",
				DestructiveHint: boolPtr(false),
				OpenWorldHint:   boolPtr(true),
			},
		},
		Handler: func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult {
			var p struct {
				URL        string `json:"url"`
				Background bool   `json:"background"`
				Browser    string `json:"browser"`
			}
			if err := json.Unmarshal(protocol.ObjectOrEmpty(args), &p); err != nil || p.URL == "" {
				return results.Failure(results.CodeInvalidArguments, results.NotRun, "open_page needs {\"url\": \"https://…\"}")
			}
			op, err := s.OpenPage(ctx, p.URL, p.Background, p.Browser)
			if err != nil {
				code, text := tabError(err)
				if strings.Contains(text, "not an http(s) URL") {
					code = results.CodeInvalidArguments
				}
				return results.Failure(code, results.NotRun, "open_page: %s", text)
			}
			return jsonResult(op)
		},
	}
}

// focusTabTool is focus_tab.
func focusTabTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "focus_tab",
			Title: "Bring a tab to the front",
			Description: "[WebMCP bridge] Brings a tab of a site the user allowed to the front of its window, so that the user " +
				"sees what you are about to do there, and get_ui_context describes it. tabId: from list_tabs. " +
				"browser: its hostPid from list_tabs, when several browsers are connected (each numbers its tabs).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"tabId":{"type":"integer"},` + browserArg + `},"required":["tabId"]}`),
			Annotations: &mcp.ToolAnnotations{Title: "Bring a tab to the front", DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		},
		Handler: tabToolHandler("focus_tab", (*Server).FocusTab),
	}
}

// closeTabTool is close_tab.
func closeTabTool() *BridgeTool {
	return &BridgeTool{
		Tool: &mcp.Tool{
			Name:  "close_tab",
			Title: "Close a tab you opened",
			Description: "[WebMCP bridge] Closes a tab that open_page opened for you; tabs the user opened are never closed. " +
				"tabId: from open_page. key: the closeKey open_page answered, when it answered one (a client without a session). " +
				"browser: the hostPid open_page answered, when several browsers are connected (each numbers its tabs).",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"tabId":{"type":"integer"},` +
				`"key":{"type":"string","description":"the closeKey open_page answered for the tab, if any"},` + browserArg + `},"required":["tabId"]}`),
			Annotations: &mcp.ToolAnnotations{Title: "Close a tab you opened", DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(false)},
		},
		Handler: func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult {
			if isStateless(ctx) {
				// Clients without a session of one name and version are one
				// agent to the browser: only the key open_page answered tells
				// the one that opened the tab from another (closekeys.go).
				var p struct {
					TabID int    `json:"tabId"`
					Key   string `json:"key"`
				}
				if err := json.Unmarshal(protocol.ObjectOrEmpty(args), &p); err == nil && p.TabID > 0 && !s.closeKeys.valid(p.Key, p.TabID) {
					return results.Failure(protocol.CodeNotAllowed, results.NotRun,
						"close_tab: tab %d was not closed: this client makes its requests without a session (MCP 2026-07-28), "+
							"so the bridge cannot tell it from another client of the same name; pass as key the closeKey that open_page "+
							"answered for this tab (each key closes its tab once), or ask the user to close the tab", p.TabID)
				}
			}
			res := tabToolHandler("close_tab", (*Server).CloseTab)(ctx, s, args)
			if !res.IsError && isStateless(ctx) {
				var p struct {
					Key string `json:"key"`
				}
				json.Unmarshal(protocol.ObjectOrEmpty(args), &p)
				s.closeKeys.forget(p.Key)
			}
			return res
		},
	}
}

// browserArg is the browser property of focus_tab's and close_tab's
// inputSchema.
const browserArg = `"browser":{"type":"string","description":"hostPid from list_tabs (or open_page) of the tab's browser"}`

func tabToolHandler(name string, do func(*Server, context.Context, int, string) error) func(context.Context, *Server, json.RawMessage) *mcp.CallToolResult {
	return func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult {
		var p struct {
			TabID   int    `json:"tabId"`
			Browser string `json:"browser"`
		}
		if err := json.Unmarshal(protocol.ObjectOrEmpty(args), &p); err != nil || p.TabID <= 0 {
			return results.Failure(results.CodeInvalidArguments, results.NotRun, "%s needs {\"tabId\": N} with a tab id from list_tabs", name)
		}
		if err := do(s, ctx, p.TabID, p.Browser); err != nil {
			code, text := tabError(err)
			ran := results.NotRun
			if code == protocol.CodeTimeout || code == protocol.CodeInternal {
				ran = results.MaybeRan
			}
			return results.Failure(code, ran, "%s: %s", name, text)
		}
		return jsonResult(map[string]int{"tabId": p.TabID})
	}
}

// jsonResult is a result with v as text and as structured content.
func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return results.Errorf("%v", err)
	}
	res := results.Text(string(b))
	res.StructuredContent = json.RawMessage(b)
	return res
}
