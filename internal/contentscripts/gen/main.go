// Command gen writes the extension's generated content scripts,
// extension/generated/main-world.js and extension/generated/isolated-world.js, bundled from
// extension/content/main/ and extension/content/isolated/. It runs from
// internal/contentscripts (go generate ./internal/contentscripts) or from
// the directory given as its argument (the repository's root).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/webmcp-bridge/bridge/internal/contentscripts"
)

func main() {
	root := filepath.Join("..", "..")
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	ext := filepath.Join(root, "extension")
	for _, s := range contentscripts.Scripts {
		out, err := s.Bundle(ext)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		path := filepath.Join(ext, filepath.FromSlash(s.Output))
		if err := os.WriteFile(path, out, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
