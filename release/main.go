// Command release builds the WebMCP bridge's release files into a folder
// (dist/ by default):
//
//   - webmcp-bridge_VERSION_OS_ARCH.tar.gz (linux, darwin) and .zip
//     (windows), for amd64 and arm64: one folder of the same name holding
//     webmcp-host, webmcp-shim, the extension's folder, install.sh (which
//     installs the binaries beside it, with no Go needed; on Windows
//     install.ps1 instead), README.md (release/archive/README.md, written
//     for the unpacked folder), docs/*.md and LICENSE;
//   - webmcp-bridge-extension_VERSION.zip: the extension, manifest.json at
//     its root, with its key (an unpacked copy keeps the fixed ID);
//   - webmcp-bridge-chrome-web-store_VERSION.zip: the zip to upload to the
//     Chrome Web Store: the files a browser loads, manifest.json at its
//     root without "key" (see storeFiles);
//   - webmcp-bridge-firefox_VERSION.xpi: the Firefox add-on
//     (internal/firefoxext), not signed;
//   - webmcp-bridge_VERSION.mcpb: the Claude Desktop bundle (an MCPB
//     file: a zip with its manifest.json), webmcp-shim for macOS (one
//     universal binary) and Windows, built when the targets include
//     darwin/amd64, darwin/arm64 and windows/amd64 (see bundle);
//   - SHA256SUMS, in the format of sha256sum -c;
//   - with -npm, the npm packages' folders in npm/ (see writeNPM): publish
//     the systems' packages, then webmcp-bridge.
//
// Run it from the repository's root:
//
//	go run ./release                      # every platform, dist/
//	go run ./release -version v0.2.0      # from a release tag
//	go run ./release -targets linux/amd64 # one platform
//
// VERSION defaults to package internal/version's; another one (a tag,
// with or without its "v") is built into the binaries with -ldflags -X and
// written into the archived copies of the extension's manifest.
//
// It is a small program rather than GoReleaser, since all it needs is go
// build, tar, zip and SHA-256 from Go's standard library: it runs with the
// modules already in go.mod, offline, in seconds beyond the builds
// themselves, where go run of GoReleaser first downloads and compiles a
// module graph many times the size of the bridge.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var opts Options
	var targets string
	flag.StringVar(&opts.Version, "version", "", "the version to build (default: internal/version's)")
	flag.StringVar(&opts.Out, "out", "dist", "the folder to write into (emptied first)")
	flag.BoolVar(&opts.NPM, "npm", false, "also write the npm packages' folders into OUT/npm (then npm pack or npm publish each, the systems' first)")
	flag.StringVar(&targets, "targets", strings.Join(Targets, ","), "comma-separated OS/ARCH pairs")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: go run ./release [-version V] [-out DIR] [-targets OS/ARCH,...] [-npm]\n\nBuilds the release archives, the extension's zips (unpacked, Chrome Web Store), the Claude Desktop bundle and SHA256SUMS (see go doc ./release).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	opts.Targets = strings.Split(targets, ",")
	opts.Source = "."
	opts.Log = os.Stderr
	files, err := Build(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Printf("%s\t%d bytes\n", f.Path, f.Size)
	}
}
