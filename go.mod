module github.com/webmcp-bridge/bridge

go 1.26
