// Package docs holds the project's documentation by topic; its test checks
// that every link in README.md and in the Markdown files here resolves.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// link matches a Markdown link or image target: ](target) or ](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

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
		a := slugs(t, path)
		anchors[path] = a
		return a
	}
	for _, f := range files {
		inFence := false
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s:%d: %s: no such file (%s)", f, n+1, target, file)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(file, ".md") && !headings(file)[anchor] {
					t.Errorf("%s:%d: %s: no heading with the anchor #%s in %s", f, n+1, target, anchor, file)
				}
			}
		}
	}
}

// slugs are the anchors of a Markdown file's headings, as GitHub makes
// them: lower case, spaces to '-', punctuation other than '-' and '_'
// dropped, a repeated one suffixed -1, -2, ….
func slugs(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		s := b.String()
		if k := seen[s]; k > 0 {
			out[s+"-"+strconv.Itoa(k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}
