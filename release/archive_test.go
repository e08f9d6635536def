package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/mdlinks"
)

// brokenLinks lists the relative links and images of the Markdown file
// name in files (an archive's, by path) that name no file of files, or a
// heading its target lacks.
func brokenLinks(files map[string][]byte, name string) []string {
	var out []string
	for _, l := range mdlinks.Relative(files[name], true) {
		file := name
		if l.Path != "" {
			file = path.Clean(path.Join(path.Dir(name), l.Path))
			_, isFile := files[file]
			isDir := slices.ContainsFunc(slices.Collect(maps.Keys(files)), func(f string) bool { return strings.HasPrefix(f, file+"/") })
			if !isFile && !isDir {
				out = append(out, name+":"+strconv.Itoa(l.Line)+": "+l.Target+": not in the archive")
				continue
			}
		}
		if l.Anchor != "" && strings.HasSuffix(file, ".md") && !mdlinks.Slugs(files[file])[l.Anchor] {
			out = append(out, name+":"+strconv.Itoa(l.Line)+": "+l.Target+": no heading #"+l.Anchor+" in "+file)
		}
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
	t.Run("Chrome Web Store zip", func(t *testing.T) {
		store, err := readArchive(filepath.Join(out, StoreZipPrefix+"9.8.7.zip"))
		if err != nil {
			t.Fatal(err)
		}
		checkStoreZip(t, store, fs, "9.8.7")
	})
}

// checkStoreZip checks the zip for the Chrome Web Store against what the
// store refuses: manifest.json at the root, at version v, Manifest V3,
// without "key" or "update_url"; no hidden file, none whose name starts
// with "_", none of the extension's tests; every file the manifest names
// is in it; and it is the archive's extension (archive, by path) but for
// the manifest and the files a browser does not read.
func checkStoreZip(t *testing.T, store, archive map[string][]byte, v string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(store["manifest.json"], &m); err != nil {
		t.Fatalf("the store zip's manifest.json (at its root): %v", err)
	}
	for _, f := range []string{"key", "update_url"} {
		if _, ok := m[f]; ok {
			t.Errorf("the store zip's manifest.json has %q, which the store refuses", f)
		}
	}
	if m["version"] != v || m["manifest_version"] != 3.0 {
		t.Errorf("the store zip's manifest: version %v, manifest_version %v; want %s, 3", m["version"], m["manifest_version"], v)
	}
	for f := range store {
		for _, part := range strings.Split(f, "/") {
			if strings.HasPrefix(part, "_") || strings.HasPrefix(part, ".") {
				t.Errorf("the store zip holds %s, a name the store refuses", f)
			}
		}
		if strings.HasPrefix(f, "test/") || slices.Contains(storeOnly, f) {
			t.Errorf("the store zip holds %s, which no browser reads", f)
		}
		if f != "manifest.json" && !bytes.Equal(store[f], archive["extension/"+f]) {
			t.Errorf("the store zip's %s is not the archive's extension/%s", f, f)
		}
	}
	for f := range archive {
		if rel, ok := strings.CutPrefix(f, "extension/"); ok && !slices.Contains(storeOnly, rel) {
			if _, in := store[rel]; !in {
				t.Errorf("the store zip lacks %s", rel)
			}
		}
	}
	// The files the manifest names (icons, pages, the worker).
	var named []string
	var walk func(key string, x any)
	walk = func(key string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, y := range x {
				walk(k, y)
			}
		case []any:
			for _, y := range x {
				walk(key, y)
			}
		case string:
			if strings.HasSuffix(key, "_path") || strings.HasSuffix(key, "_popup") || strings.HasSuffix(key, "_page") ||
				key == "service_worker" || strings.HasSuffix(x, ".png") {
				p, _, _ := strings.Cut(x, "?")
				named = append(named, p)
			}
		}
	}
	walk("", m)
	if len(named) < 4 {
		t.Errorf("the manifest names only %q", named)
	}
	for _, p := range named {
		if _, ok := store[p]; !ok {
			t.Errorf("the store zip lacks %s, which its manifest names", p)
		}
	}
	if icon := m["icons"].(map[string]any)["128"]; icon == nil {
		t.Errorf("the store zip's manifest has no 128-pixel icon, which the store asks for")
	}
}

// storeManifest drops the fields the store refuses, wherever they are in
// the object, and keeps the rest of the file byte for byte.
func TestStoreManifest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"name\": \"x\",\n  \"key\": \"K\",\n  \"version\": \"1\"\n}\n", "{\n  \"name\": \"x\",\n  \"version\": \"1\"\n}\n"},
		{"{\n  \"name\": \"x\",\n  \"key\": \"K\"\n}\n", "{\n  \"name\": \"x\"\n}\n"},
		{"{\"key\":\"K\",\"update_url\":\"https://u\",\"name\":\"x\"}", "{\"name\":\"x\"}"},
		{"{\"name\": \"x\"}", "{\"name\": \"x\"}"},
	} {
		got, err := storeManifest([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("storeManifest(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := storeManifest([]byte(`{"key": ["not", "a string"]}`)); err == nil || !strings.Contains(err.Error(), `still has "key"`) {
		t.Errorf("a key storeManifest cannot remove: %v, want it refused", err)
	}
	if _, err := storeFiles([]entry{{"manifest.json", 0o644, []byte("{}")}, {"_metadata/x", 0o644, nil}}); err == nil || !strings.Contains(err.Error(), "_metadata/x") {
		t.Errorf("storeFiles of a _metadata folder: %v, want it refused", err)
	}
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
		links += len(mdlinks.Relative(fs[r], true))
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
