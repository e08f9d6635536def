package main

import (
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches a Markdown link or image target: ](target) or
// ](target "title"); htmlSrc an HTML img's or a's target.
var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	htmlSrc = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
)

// brokenLinks lists the relative links and images of the Markdown file
// name in files (an archive's, by path) that name no file of files, or a
// heading its target lacks.
func brokenLinks(files map[string][]byte, name string) []string {
	var out []string
	inFence := false
	for n, line := range strings.Split(string(files[name]), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		var targets []string
		for _, m := range slices.Concat(mdLink.FindAllStringSubmatch(line, -1), htmlSrc.FindAllStringSubmatch(line, -1)) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p, anchor, _ := strings.Cut(target, "#")
			file := name
			if p != "" {
				file = path.Clean(path.Join(path.Dir(name), p))
				_, isFile := files[file]
				isDir := slices.ContainsFunc(slices.Collect(maps.Keys(files)), func(f string) bool { return strings.HasPrefix(f, file+"/") })
				if !isFile && !isDir {
					out = append(out, name+":"+strconv.Itoa(n+1)+": "+target+": not in the archive")
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !headingSlugs(files[file])[anchor] {
				out = append(out, name+":"+strconv.Itoa(n+1)+": "+target+": no heading #"+anchor+" in "+file)
			}
		}
	}
	return out
}

// headingSlugs are the anchors of a Markdown file's headings, as GitHub
// makes them (as docs/links_test.go does).
func headingSlugs(md []byte) map[string]bool {
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

// TestQuickRelease builds the release for linux/amd64 alone (TestRelease
// builds everything) and checks what concerns every system alike.
func TestQuickRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release")
	}
	out := t.TempDir()
	if _, err := Build(Options{Source: "..", Out: out, Version: "9.8.7", Targets: []string{"linux/amd64"}}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	fs, err := readArchive(filepath.Join(out, archiveName("9.8.7", "linux", "amd64")))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("archive links", func(t *testing.T) { checkArchiveLinks(t, fs) })
}

// checkArchiveLinks checks an archive's README: the release's own (no
// clone, no Go, no ./test.sh), whose every relative link and image, and
// those of the extension's README it ships, resolve to a file inside the
// archive.
func checkArchiveLinks(t *testing.T, fs map[string][]byte) {
	readme := string(fs["README.md"])
	for _, bad := range []string{"test.sh", "from a clone", "Go 1.", "go run", "screenshots/"} {
		if strings.Contains(readme, bad) {
			t.Errorf("the archive's README.md says %q, which is the clone's, not the archive's", bad)
		}
	}
	for _, want := range []string{"./install.sh", "install.ps1", "Load unpacked", "register claude --write"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the archive's README.md lacks %q (install from this folder, load the extension, register an agent)", want)
		}
	}
	var readmes []string
	for f := range fs {
		if path.Base(f) == "README.md" {
			readmes = append(readmes, f)
		}
	}
	slices.Sort(readmes)
	if !slices.Contains(readmes, "README.md") || !slices.Contains(readmes, "extension/README.md") {
		t.Fatalf("the archive's READMEs are %q, want README.md and extension/README.md", readmes)
	}
	links := 0
	for _, r := range readmes {
		links += len(mdLink.FindAll(fs[r], -1))
		for _, b := range brokenLinks(fs, r) {
			t.Errorf("the archive's %s", b)
		}
	}
	if links == 0 {
		t.Errorf("no links found in %q: the link pattern is broken", readmes)
	}
}

// brokenLinks finds what it should: a missing file, a missing heading, an
// image, and takes what is there.
func TestBrokenLinks(t *testing.T) {
	fs := map[string][]byte{
		"README.md": []byte("[a](docs/a.md) [b](docs/b.md) ![i](docs/shot.png) [h](docs/a.md#there) [n](docs/a.md#nowhere)\n" +
			"[web](https://example.com/x.png) [dir](extension) [self](#top)\n```\n[fenced](nothere.md)\n```\n<img src=\"img/logo.png\">\n# Top\n"),
		"docs/a.md":         []byte("# There\n"),
		"extension/main.js": nil,
	}
	got := brokenLinks(fs, "README.md")
	want := []string{
		"README.md:1: docs/b.md: not in the archive",
		"README.md:1: docs/shot.png: not in the archive",
		"README.md:1: docs/a.md#nowhere: no heading #nowhere in docs/a.md",
		"README.md:6: img/logo.png: not in the archive",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brokenLinks = %q, want %q", got, want)
	}
}
