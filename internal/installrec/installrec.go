// Package installrec is install.sh's record of what it wrote, so that
// `./install.sh --uninstall` removes exactly that and `webmcp-shim doctor`
// knows which manifests belong to this install.
//
// The record is a text file, one entry a line, fields separated by tabs:
//
//	KIND	PATH	NOTE
//
// KIND is "manifest" (a native-messaging manifest; NOTE names the browser
// or profile), "file" (a binary), "tree" (a folder copied whole: the
// extension) or "dir" (a folder that the install created, removed at
// uninstall when empty). Lines starting with # are comments. install.sh
// appends lines; webmcp-host install and uninstall read and rewrite it.
package installrec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the record's name in PREFIX/share/webmcp-bridge.
const FileName = "install-record"

// Kinds of entries.
const (
	Manifest = "manifest"
	File     = "file"
	Tree     = "tree"
	Dir      = "dir"
)

// Entry is one thing the install wrote.
type Entry struct {
	Kind string
	Path string // absolute
	Note string // for a manifest: the browser, or "--user-data-dir DIR"
}

// Record is the list of entries in the file at Path.
type Record struct {
	Path    string
	Entries []Entry
}

// PathFor is where the record of an install whose binaries are in bin
// (PREFIX/bin) is: PREFIX/share/webmcp-bridge/install-record.
func PathFor(bin string) string {
	return filepath.Join(filepath.Dir(bin), "share", "webmcp-bridge", FileName)
}

// Load reads the record at path; a missing file is an empty record and
// exists is false.
func Load(path string) (r *Record, exists bool, err error) {
	r = &Record{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 2 || !filepath.IsAbs(f[1]) {
			return nil, true, fmt.Errorf("%s line %d: %q is not KIND<tab>ABSOLUTE-PATH[<tab>NOTE]", path, n, line)
		}
		e := Entry{Kind: f[0], Path: filepath.Clean(f[1])}
		if len(f) == 3 {
			e.Note = f[2]
		}
		switch e.Kind {
		case Manifest, File, Tree, Dir:
		default:
			return nil, true, fmt.Errorf("%s line %d: unknown kind %q", path, n, e.Kind)
		}
		r.Add(e)
	}
	return r, true, sc.Err()
}

// Add adds e unless the record has an entry of that kind and path.
func (r *Record) Add(e Entry) {
	for _, o := range r.Entries {
		if o.Kind == e.Kind && o.Path == e.Path {
			return
		}
	}
	r.Entries = append(r.Entries, e)
}

// Of returns the entries of kind.
func (r *Record) Of(kind string) []Entry {
	var out []Entry
	for _, e := range r.Entries {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// Save writes the record to r.Path.
func (r *Record) Save() error {
	var b strings.Builder
	b.WriteString("# What ./install.sh wrote; ./install.sh --uninstall removes it. KIND<tab>PATH<tab>NOTE\n")
	for _, e := range r.Entries {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", e.Kind, e.Path, e.Note)
	}
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		return err
	}
	tmp := r.Path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, r.Path)
}

// CreatedDirs returns the folders that os.MkdirAll(dir) would create:
// dir and its missing parents, deepest last.
func CreatedDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append([]string{d}, out...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}
