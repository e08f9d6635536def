// Package docs holds the project's documentation by topic; its test checks
// that every link in README.md and in the Markdown files here resolves.
package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/mdlinks"
)

// TestLinksResolve: every relative link of README.md and docs/*.md names a
// file or folder of the repository, and every #anchor a heading of its
// file (GitHub's slugs).
func TestLinksResolve(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	if len(files) < 2 {
		t.Fatalf("found only %v", files)
	}
	anchors := map[string]map[string]bool{}
	headings := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := mdlinks.Slugs(b)
		anchors[path] = a
		return a
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range mdlinks.Relative(b, false) {
			file := f
			if l.Path != "" {
				file = filepath.Join(filepath.Dir(f), filepath.FromSlash(l.Path))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: %s: no such file (%s)", f, l.Line, l.Target, file)
					continue
				}
			}
			if l.Anchor != "" && strings.HasSuffix(file, ".md") && !headings(file)[l.Anchor] {
				t.Errorf("%s:%d: %s: no heading with the anchor #%s in %s", f, l.Line, l.Target, l.Anchor, file)
			}
		}
	}
}
