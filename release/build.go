package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webmcp-bridge/bridge/internal/extfiles"
	"github.com/webmcp-bridge/bridge/internal/firefoxext"
	"github.com/webmcp-bridge/bridge/internal/version"
)

// ArchiveReadme is the README.md of the release archives and of the npm
// package webmcp-bridge, relative to the repository's root: written for
// the unpacked folder (install from it, load the extension, register an
// agent), where the clone's README.md speaks of Go, ./test.sh and
// screenshots that do not ship. Every relative link in it resolves inside
// an archive (TestArchiveLinks).
const ArchiveReadme = "release/archive/README.md"

// Targets are the OS/ARCH pairs of a release.
var Targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// Options say what Build builds.
type Options struct {
	Source  string    // the repository's root
	Out     string    // the folder for the release files
	Version string    // "" for internal/version's; a leading "v" is dropped
	Targets []string  // OS/ARCH pairs
	NPM     bool      // also the npm packages' folders, in Out/npm
	Log     io.Writer // progress lines; nil for none
}

// File is one release file that Build wrote.
type File struct {
	Path string
	Size int64
}

// entry is one file of an archive: its path inside, mode and content.
type entry struct {
	name string
	mode int64
	data []byte
}

// chromeVersion is what Chrome takes as an extension's version.
var chromeVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,3}$`)

// Build builds the release files (see the package doc) and returns them,
// SHA256SUMS last.
func Build(opts Options) ([]File, error) {
	v := strings.TrimPrefix(opts.Version, "v")
	if v == "" {
		v = version.Version
	}
	if !chromeVersion.MatchString(v) {
		return nil, fmt.Errorf("version %q is not 1 to 4 dot-separated numbers (like 0.2.0), which the extension's manifest needs", v)
	}
	for _, t := range opts.Targets {
		if !slices.Contains(Targets, t) {
			return nil, fmt.Errorf("unknown target %q: use OS/ARCH among %s", t, strings.Join(Targets, ", "))
		}
	}
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	if err := cleanOut(opts.Out); err != nil {
		return nil, err
	}
	ext, err := extensionFiles(filepath.Join(opts.Source, "extension"), v)
	if err != nil {
		return nil, err
	}
	var common, scripts []entry
	// The README is the release's own (ArchiveReadme), not the clone's:
	// it installs from the unpacked folder and links only what ships.
	for _, f := range []struct {
		name, src string
		mode      int64
	}{{"README.md", ArchiveReadme, 0o644}, {"LICENSE", "LICENSE", 0o644}, {"install.sh", "install.sh", 0o755}, {"install.ps1", "install.ps1", 0o644}} {
		b, err := os.ReadFile(filepath.Join(opts.Source, filepath.FromSlash(f.src)))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w (run the release command from the repository's root)", f.src, err)
		}
		if strings.HasPrefix(f.name, "install.") {
			scripts = append(scripts, entry{f.name, f.mode, b})
		} else {
			common = append(common, entry{f.name, f.mode, b})
		}
	}
	for _, e := range ext {
		common = append(common, entry{"extension/" + e.name, e.mode, e.data})
	}
	// The README's links lead into docs/: its Markdown files travel too
	// (the screenshots and the link test stay in the repository, so the
	// images of docs/*.md do not show in an archive).
	docs, err := filepath.Glob(filepath.Join(opts.Source, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", d, err)
		}
		common = append(common, entry{"docs/" + filepath.Base(d), 0o644, b})
	}
	mtime := modTime()
	tmp, err := os.MkdirTemp("", "webmcp-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	var files []File
	built := map[string][]entry{}
	for _, t := range opts.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		logf("building %s", t)
		bins, err := buildBinaries(opts.Source, filepath.Join(tmp, goos+"_"+goarch), goos, goarch, v)
		if err != nil {
			return nil, err
		}
		built[t] = bins
		name := fmt.Sprintf("webmcp-bridge_%s_%s_%s", v, goos, goarch)
		entries := slices.Concat(bins, installers(goos, scripts), common)
		var f File
		if goos == "windows" {
			f, err = writeZip(filepath.Join(opts.Out, name+".zip"), name+"/", entries, mtime)
		} else {
			f, err = writeTarGz(filepath.Join(opts.Out, name+".tar.gz"), name+"/", entries, mtime)
		}
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	f, err := writeZip(filepath.Join(opts.Out, "webmcp-bridge-extension_"+v+".zip"), "", ext, mtime)
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	store, err := storeFiles(ext)
	if err != nil {
		return nil, fmt.Errorf("the Chrome Web Store zip: %w", err)
	}
	if f, err = writeZip(filepath.Join(opts.Out, StoreZipPrefix+v+".zip"), "", store, mtime); err != nil {
		return nil, err
	}
	files = append(files, f)
	xpi, err := firefoxFiles(filepath.Join(opts.Source, "extension"), v)
	if err != nil {
		return nil, err
	}
	if f, err = writeZip(filepath.Join(opts.Out, "webmcp-bridge-firefox_"+v+".xpi"), "", xpi, mtime); err != nil {
		return nil, err
	}
	files = append(files, f)
	if bundleTargetsIn(opts.Targets) {
		icon, err := os.ReadFile(filepath.Join(opts.Source, "extension", "icons", "icon-128.png"))
		if err != nil {
			return nil, err
		}
		b, err := bundle(v, built, icon, common)
		if err != nil {
			return nil, fmt.Errorf("the Claude Desktop bundle: %w", err)
		}
		f, err := writeZip(filepath.Join(opts.Out, "webmcp-bridge_"+v+".mcpb"), "", b, mtime)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	} else {
		logf("no Claude Desktop bundle: it needs %s", strings.Join(bundleTargets, ", "))
	}
	sums, err := writeSums(filepath.Join(opts.Out, "SHA256SUMS"), files)
	if err != nil {
		return nil, err
	}
	if opts.NPM {
		if err := writeNPM(filepath.Join(opts.Out, "npm"), v, slices.Concat(scripts, common), built); err != nil {
			return nil, fmt.Errorf("writing the npm packages: %w", err)
		}
	}
	return append(files, sums), nil
}

// installers are the install scripts of an archive for goos: install.ps1
// on Windows, install.sh elsewhere.
func installers(goos string, scripts []entry) []entry {
	want := "install.sh"
	if goos == "windows" {
		want = "install.ps1"
	}
	var out []entry
	for _, e := range scripts {
		if e.name == want {
			out = append(out, e)
		}
	}
	return out
}

// cleanOut makes dir, removing the release files of an earlier run.
func cleanOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "webmcp-bridge*"))
	for _, f := range append(old, filepath.Join(dir, "SHA256SUMS"), filepath.Join(dir, "npm")) {
		if err := os.RemoveAll(f); err != nil {
			return err
		}
	}
	return nil
}

// extensionFiles reads the extension's folder as a browser loads it
// (internal/extfiles), with version v in its manifest.
func extensionFiles(dir, v string) ([]entry, error) {
	return entriesOf(extfiles.Read(dir, func(b []byte) ([]byte, error) { return setManifestVersion(b, v) }))
}

// entriesOf makes the extension's files (what extfiles.Read gave, or its
// error) entries of an archive.
func entriesOf(files []extfiles.File, err error) ([]entry, error) {
	if err != nil {
		return nil, err
	}
	out := make([]entry, len(files))
	for i, f := range files {
		out[i] = entry{f.Name, 0o644, f.Data}
	}
	return out, nil
}

// StoreZipPrefix starts the name of the zip to upload to the Chrome Web
// Store: StoreZipPrefix + VERSION + ".zip".
const StoreZipPrefix = "webmcp-bridge-chrome-web-store_"

// storeOnly are the extension folder's files that a browser never reads
// (its documentation, and the package.json that lets Node run its tests),
// left out of the Chrome Web Store's zip.
var storeOnly = []string{"README.md", "PROTOCOL.md", "package.json"}

// storeFiles is the extension as the Chrome Web Store takes an upload:
// the files a browser loads (ext, from extensionFiles), manifest.json at
// the root and without "key" (the store refuses a manifest with one and
// gives the extension an ID of its own) or "update_url" (the store
// updates what it hosts itself), no file or folder whose name starts with
// "_" (reserved by Chrome, which refuses to load them) and none hidden.
func storeFiles(ext []entry) ([]entry, error) {
	var out []entry
	seen := false
	for _, e := range ext {
		if slices.Contains(storeOnly, e.name) {
			continue
		}
		for _, part := range strings.Split(e.name, "/") {
			if strings.HasPrefix(part, "_") || strings.HasPrefix(part, ".") {
				return nil, fmt.Errorf("extension/%s: the store refuses files and folders whose names start with _ or .: rename it", e.name)
			}
		}
		if e.name == "manifest.json" {
			seen = true
			b, err := storeManifest(e.data)
			if err != nil {
				return nil, err
			}
			e.data = b
		}
		out = append(out, e)
	}
	if !seen {
		return nil, fmt.Errorf("the extension has no manifest.json")
	}
	return out, nil
}

// storeFields are the manifest's top-level fields that the Chrome Web
// Store refuses in an upload, each a string.
var storeFields = []string{"key", "update_url"}

// storeManifest is the extension's manifest without storeFields, the rest
// of the file as it is.
func storeManifest(b []byte) ([]byte, error) {
	for _, field := range storeFields {
		q := regexp.QuoteMeta(field)
		// The field and the comma after it, or, last in its object, the
		// comma before it.
		after := regexp.MustCompile(`\n?[ \t]*"` + q + `"\s*:\s*"[^"]*"\s*,`)
		before := regexp.MustCompile(`,\s*"` + q + `"\s*:\s*"[^"]*"`)
		if loc := after.FindIndex(b); loc != nil {
			b = slices.Concat(b[:loc[0]], b[loc[1]:])
		} else if loc := before.FindIndex(b); loc != nil {
			b = slices.Concat(b[:loc[0]], b[loc[1]:])
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("extension/manifest.json without %s is not JSON (%v): write each of them on a line of its own", strings.Join(storeFields, " and "), err)
	}
	for _, field := range storeFields {
		if _, ok := m[field]; ok {
			return nil, fmt.Errorf("extension/manifest.json still has %q after removing it for the store: make it a string on a line of its own", field)
		}
	}
	return b, nil
}

// firefoxFiles is the Firefox add-on (internal/firefoxext's manifest) of
// the extension's folder, with version v, for an .xpi: unsigned, which
// Firefox installs for good only where xpinstall.signatures.required can be
// false (ESR, Developer Edition, Nightly), and as a temporary add-on
// anywhere.
func firefoxFiles(dir, v string) ([]entry, error) {
	return entriesOf(extfiles.Read(dir, func(b []byte) ([]byte, error) {
		b, err := setManifestVersion(b, v)
		if err != nil {
			return nil, err
		}
		return firefoxext.Manifest(b)
	}))
}

// manifestVersion is the manifest's top-level "version" (the first one).
var manifestVersion = regexp.MustCompile(`"version"\s*:\s*"[^"]*"`)

// setManifestVersion sets the manifest's version to v, keeping the rest
// of the file as it is (its key, so the unpacked ID stays the same).
func setManifestVersion(b []byte, v string) ([]byte, error) {
	loc := manifestVersion.FindIndex(b)
	if loc == nil {
		return nil, fmt.Errorf("extension/manifest.json has no \"version\"")
	}
	return slices.Concat(b[:loc[0]], []byte(`"version": "`+v+`"`), b[loc[1]:]), nil
}

// buildBinaries builds webmcp-host and webmcp-shim for goos/goarch into dir.
func buildBinaries(src, dir, goos, goarch, v string) ([]entry, error) {
	cmd := exec.Command("go", "build", "-trimpath", "-o", dir+string(filepath.Separator),
		"-ldflags", "-s -w -X github.com/webmcp-bridge/bridge/internal/version.Version="+v,
		"./cmd/webmcp-host", "./cmd/webmcp-shim")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %v\n%s", goos, goarch, err, out)
	}
	exe := ""
	if goos == "windows" {
		exe = ".exe"
	}
	var out []entry
	for _, name := range []string{"webmcp-host" + exe, "webmcp-shim" + exe} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, entry{name, 0o755, b})
	}
	return out, nil
}

// modTime is the files' time in the archives: $SOURCE_DATE_EPOCH, for
// reproducible archives, else now.
func modTime() time.Time {
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		return time.Unix(s, 0).UTC()
	}
	return time.Now().UTC().Truncate(time.Second)
}

// dirs lists the folders that the entries' paths need, parents first.
func dirs(entries []entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		for d := path.Dir(e.name); d != "."; d = path.Dir(d) {
			if seen[d] {
				break
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

func writeTarGz(file, prefix string, entries []entry, mtime time.Time) (File, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	hdr := func(h *tar.Header) error {
		h.ModTime, h.Uname, h.Gname, h.Format = mtime, "root", "root", tar.FormatPAX
		return tw.WriteHeader(h)
	}
	if err := hdr(&tar.Header{Typeflag: tar.TypeDir, Name: prefix, Mode: 0o755}); err != nil {
		return File{}, err
	}
	for _, d := range dirs(entries) {
		if err := hdr(&tar.Header{Typeflag: tar.TypeDir, Name: prefix + d + "/", Mode: 0o755}); err != nil {
			return File{}, err
		}
	}
	for _, e := range entries {
		if err := hdr(&tar.Header{Typeflag: tar.TypeReg, Name: prefix + e.name, Mode: e.mode, Size: int64(len(e.data))}); err != nil {
			return File{}, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return File{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return File{}, err
	}
	if err := gz.Close(); err != nil {
		return File{}, err
	}
	return writeFile(file, buf.Bytes())
}

func writeZip(file, prefix string, entries []entry, mtime time.Time) (File, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: prefix + e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(fs.FileMode(e.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return File{}, err
		}
		if _, err := w.Write(e.data); err != nil {
			return File{}, err
		}
	}
	if err := zw.Close(); err != nil {
		return File{}, err
	}
	return writeFile(file, buf.Bytes())
}

// writeSums writes the SHA-256 of each file, as sha256sum does.
func writeSums(file string, files []File) (File, error) {
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return File{}, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.Base(f.Path))
	}
	return writeFile(file, []byte(b.String()))
}

func writeFile(file string, data []byte) (File, error) {
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return File{}, err
	}
	return File{Path: file, Size: int64(len(data))}, nil
}
