// Package extfiles reads the extension's folder as a browser loads it:
// every file but the Node tests (test/), node_modules and hidden files and
// folders, with manifest.json passed through a function of the caller's.
// The release's extension archive (release) and the Firefox add-on
// (internal/firefoxext) are both made from what Read returns. Production
// code.
package extfiles

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one file of the extension.
type File struct {
	Name string // its path in the folder, with forward slashes
	Data []byte
}

// Read returns the files of the extension folder dir in lexical order,
// with manifest.json made by manifest from the folder's own (nil keeps it
// as it is). A folder without manifest.json is an error.
func Read(dir string, manifest func([]byte) ([]byte, error)) ([]File, error) {
	var out []File
	seen := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || rel == "node_modules" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "manifest.json" {
			seen = true
			if manifest != nil {
				if b, err = manifest(b); err != nil {
					return err
				}
			}
		}
		out = append(out, File{rel, b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the extension: %w", err)
	}
	if !seen {
		return nil, fmt.Errorf("no manifest.json in %s: give the extension's folder", dir)
	}
	return out, nil
}
