// Package shim is webmcp-shim's MCP server: it mirrors the tools of the web
// pages open in the user's browsers, as the WebMCP bridge extension reports
// them through each browser's webmcp-host, and adds the bridge's own tools.
//
// A [Server] is always up, with or without a browser: it answers initialize
// at once, connects to every host socket in the runtime directory (package
// hosts), picks up hosts that appear later and drops those that go. Each
// page tool of an allowed tab becomes an MCP tool with the page's schema
// (arguments are validated before the page sees them), its annotations, its
// provenance at the start of its description, and a name that is unique and
// stable for the tool's lifetime (package toolnames). Results and errors are
// mapped by package results.
//
// The same Server backs the CLI's one-shot commands ([Server.Connect],
// [Server.Tools], [Server.CallTool], [Server.Hosts]), so a script sees the
// very names, validation and results that an agent sees.
package shim
