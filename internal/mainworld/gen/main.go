// Command gen writes the extension's main-world script,
// extension/content/main.js, bundled from extension/content/main/. It runs
// from internal/mainworld (go generate ./internal/mainworld) or from the
// directory given as its argument (the repository's root).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/webmcp-bridge/bridge/internal/mainworld"
)

func main() {
	root := filepath.Join("..", "..")
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	ext := filepath.Join(root, "extension")
	out, err := mainworld.Bundle(ext)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	path := filepath.Join(ext, filepath.FromSlash(mainworld.Output))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
