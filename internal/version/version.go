// Package version holds the WebMCP bridge's release version: the one place
// it comes from. webmcp-shim --version, webmcp-host --version, the host's
// hello (protocol.HostInfo.Version) and doctor all print it, and the
// extension's manifest (extension/manifest.json "version") must say the
// same (a test here fails when they drift).
//
// A release build may set it from the release tag:
//
//	go build -ldflags "-X github.com/webmcp-bridge/bridge/internal/version.Version=0.2.0" ./cmd/...
//
// (the release command, go run ./release, does so and writes the same
// version into the extension's manifest in its archives).
//
// Production code.
package version

// Version is the bridge's version: numbers and dots, as Chrome wants an
// extension's version ("0.1.0", not "v0.1.0").
var Version = "0.1.0"
