package cli

import bridgeversion "github.com/webmcp-bridge/bridge/internal/version"

// version is the bridge's version (package internal/version), which the
// shim tells MCP clients and prints for --version.
func version() string { return bridgeversion.Version }
