// Command gen writes Firefox's manifest of the extension (see package
// firefoxext): by default into internal/firefoxext/manifest.json, where it
// is committed; with -o DIR, the whole add-on into DIR, for Firefox to load.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/webmcp-bridge/bridge/internal/firefoxext"
)

func main() {
	out := flag.String("o", "", "write the add-on (the extension's files with Firefox's manifest) into the new folder `DIR`")
	flag.Parse()
	// go generate runs in internal/firefoxext; go run -o from anywhere in
	// the repository.
	root, err := repoRoot()
	if err != nil {
		fail(err)
	}
	src := filepath.Join(root, "extension")
	if *out != "" {
		if err := firefoxext.Build(src, *out); err != nil {
			fail(err)
		}
		fmt.Printf("wrote the Firefox add-on into %s: load it in about:debugging (This Firefox, Load Temporary Add-on, pick its manifest.json)\n", *out)
		return
	}
	chrome, err := os.ReadFile(filepath.Join(src, "manifest.json"))
	if err != nil {
		fail(err)
	}
	b, err := firefoxext.Manifest(chrome)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(root, "internal", "firefoxext", "manifest.json"), b, 0o644); err != nil {
		fail(err)
	}
}

// repoRoot is the folder with go.mod at or above the working folder.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod at or above the working folder: run this in the repository")
		}
		dir = up
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "firefoxext gen:", err)
	os.Exit(1)
}
