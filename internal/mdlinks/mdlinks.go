// Package mdlinks reads Markdown files as GitHub renders their links: the
// relative link and image targets outside fenced code, and the anchors of
// the headings. It is test-only: the documentation's link test
// (docs/links_test.go) and the release archive's (release/archive_test.go)
// check with it that every link resolves.
package mdlinks

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	// mdLink matches a Markdown link or image target: ](target) or ](target "title").
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// htmlLink matches an HTML element's src or href.
	htmlLink = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
)

// Link is one relative link of a Markdown file.
type Link struct {
	Line   int    // 1-based
	Target string // as written
	Path   string // the target before '#' ("" for an anchor of the same file)
	Anchor string // the target after '#', if any
}

// Relative returns the relative links and images of md, in order, outside
// fenced code blocks: Markdown's, and with html also HTML src and href
// attributes. Absolute URLs and mailto: links are left out.
func Relative(md []byte, html bool) []Link {
	var out []Link
	inFence := false
	for n, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		matches := mdLink.FindAllStringSubmatch(line, -1)
		if html {
			matches = append(matches, htmlLink.FindAllStringSubmatch(line, -1)...)
		}
		for _, m := range matches {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p, anchor, _ := strings.Cut(target, "#")
			out = append(out, Link{Line: n + 1, Target: target, Path: p, Anchor: anchor})
		}
	}
	return out
}

// Slugs returns the anchors of md's headings as GitHub makes them: lower
// case, spaces to '-', punctuation other than '-' and '_' dropped, a
// repeated one suffixed -1, -2, ….
func Slugs(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
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
