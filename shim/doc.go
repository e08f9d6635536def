// Package shim is webmcp-shim's MCP server: it mirrors the tools of the web
// pages open in the user's browsers, as the WebMCP bridge extension reports
// them through each browser's webmcp-host, and adds the bridge's own tools.
//
// A [Server] is always up, with or without a browser: it answers initialize
// at once, connects to every host socket in the runtime directory (package
// hosts), picks up hosts that appear later and drops those that go. Each
// page tool of an allowed tab becomes an MCP tool with the page's schema
// (arguments are checked against it, but only those past the limits are
// refused: a mismatch is a note in the result, as Chromium runs such
// calls), its annotations, its
// provenance at the start of its description, and a name that is unique and
// stable for the tool's lifetime (package toolnames). Results and errors are
// mapped by package results. A call that needs a browser, made while none
// is connected (the agent's first call as the browser starts, or one during
// a host's restart), waits for one at most [BrowserWait], within the call's
// --timeout, before it says that none is and what to start.
//
// Click-to-context: the bridge tool get_ui_context returns what the user is
// looking at ([Server.UIContext]: the focused tab, its context providers'
// reports, ambient context and pins; it asks the page for a fresh sample
// first, within [SampleBudget]); the resource [UIContextURI] holds the same
// and notifies subscribers when it changes; and the MCP instructions, made
// at initialize ([Server.Instructions]), explain <ui_context> and
// <pinned_context> and carry each known provider's description. Package
// uicontext builds and renders the payload. [Server.Pin] and
// [Server.Unpin] ask the extension, which keeps the pins, to change them.
//
// Only allowed sites reach agents: tools and context of other tabs are never
// exposed, and list_tabs shows only their id and origin.
//
// The same Server backs the CLI's one-shot commands ([Server.Connect],
// [Server.Tools], [Server.CallTool], [Server.Hosts], [Server.UIContext],
// [Server.Pins]), so a script sees the very names, validation, results and
// context that an agent sees.
package shim
