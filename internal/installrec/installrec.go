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
// extension), "dir" (a folder that the install created, removed at
// uninstall when empty), and on Windows "regvalue" (the default value of a
// registry key HKCU\...\NativeMessagingHosts\dev.webmcp.bridge, naming the
// manifest; NOTE names the browsers) or "regkey" (a registry key that the
// install created, removed at uninstall when empty). Lines starting with #
// are comments; one of them, "# installer: COMMAND", names the command that
// made the install (./install.sh, .\install.ps1, npx webmcp-bridge
// install), which doctor's advice repeats; each "# extension-id: ID" names
// an extension ID that the install lets start the host beside the fixed
// one (a store's: install --extension-id), which a reinstall keeps, the
// host accepts and doctor checks in the manifests. webmcp-host install
// writes it and uninstall reads it.
//
// The record is not trusted further than the places an install writes
// ([Check]): whatever a line says, the uninstall removes only this install's
// binaries and extension folder, manifests in NativeMessagingHosts folders,
// and never through a symbolic link.
//
// Production code.
package installrec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/webmcp-bridge/bridge/manifest"
)

// FileName is the record's name in PREFIX/share/webmcp-bridge.
const FileName = "install-record"

// Kinds of entries.
const (
	Manifest = "manifest"
	File     = "file"
	Tree     = "tree"
	Dir      = "dir"
	RegValue = "regvalue"
	RegKey   = "regkey"
)

// RegRoot starts the path of a RegValue or RegKey entry: the keys are the
// user's (HKEY_CURRENT_USER).
const RegRoot = `HKCU\`

// Entry is one thing the install wrote.
type Entry struct {
	Kind string
	Path string // absolute; for a registry entry, HKCU\KEY
	Note string // for a manifest: the browser, or "--user-data-dir DIR"
}

// Record is the list of entries in the file at Path.
type Record struct {
	Path    string
	Entries []Entry
	// Installer is the command that made the install ("" when the record
	// does not say: one written before it did).
	Installer string
	// ExtensionIDs are the extension IDs the install lets start its host
	// beside protocol.ExtensionID (a store's), each once.
	ExtensionIDs []string
}

// DefaultInstaller is the command that installs from a clone or a release
// archive on this system: the script beside the binaries.
func DefaultInstaller() string {
	if runtime.GOOS == "windows" {
		return `.\install.ps1`
	}
	return "./install.sh"
}

// installerComment starts the comment line that holds Record.Installer; a
// comment, so that a binary that does not know it passes over it.
const installerComment = "# installer: "

// extensionIDComment starts a comment line that holds one of
// Record.ExtensionIDs.
const extensionIDComment = "# extension-id: "

// PathFor is where the record of an install whose binaries are in bin
// (PREFIX/bin) is: PREFIX/share/webmcp-bridge/install-record.
func PathFor(bin string) string {
	return filepath.Join(filepath.Dir(bin), "share", "webmcp-bridge", FileName)
}

// Prefix is the PREFIX of the install whose record is at path
// (PREFIX/share/webmcp-bridge/install-record); ok is false for a record
// elsewhere, whose entries may then name no binary and no extension folder.
func Prefix(path string) (prefix string, ok bool) {
	path = filepath.Clean(path)
	share := filepath.Dir(path)
	if filepath.Base(path) != FileName || filepath.Base(share) != "webmcp-bridge" || filepath.Base(filepath.Dir(share)) != "share" {
		return "", false
	}
	return filepath.Dir(filepath.Dir(share)), true
}

// Binaries are the names of the files an install puts in PREFIX/bin
// (with .exe on Windows).
var Binaries = []string{Exe("webmcp-host"), Exe("webmcp-shim")}

// Exe is the file name of the program name on this system: name.exe on
// Windows, else name.
func Exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// ManifestDir is, on Windows, the folder of the install at prefix that
// holds its one manifest, which the registry values name.
func ManifestDir(prefix string) string {
	return filepath.Join(prefix, "share", "webmcp-bridge", "NativeMessagingHosts")
}

// ExtensionDir is the extension's folder of the install at prefix.
func ExtensionDir(prefix string) string {
	return filepath.Join(prefix, "share", "webmcp-bridge", "extension")
}

// FirefoxExtensionDir is the Firefox add-on's folder of the install at
// prefix: the extension with Firefox's manifest (see package firefoxext).
func FirefoxExtensionDir(prefix string) string {
	return filepath.Join(prefix, "share", "webmcp-bridge", "firefox-extension")
}

// ErrNotOurs is wrapped by the errors of [Check] and [NoLinks]: the entry
// names a place that the install does not write, or a path that goes
// through a symbolic link and so may lead anywhere.
var ErrNotOurs = errors.New("not a place this install writes")

// Check says whether e, an entry of the record of an install at prefix (""
// when the record is not in a prefix, see [Prefix]), names a place that
// such an install writes, and that nothing on its way there is a symbolic
// link. The places:
//
//   - File: PREFIX/bin/webmcp-host and PREFIX/bin/webmcp-shim;
//   - Tree: PREFIX/share/webmcp-bridge/extension and
//     PREFIX/share/webmcp-bridge/firefox-extension;
//   - Manifest: a file named dev.webmcp.bridge.json in a folder named
//     NativeMessagingHosts, whose parent (the browser's folder, or a
//     --user-data-dir) is its root;
//   - Dir: any folder that is not a link itself; the uninstall removes
//     one only when it has just emptied it;
//   - RegValue: the default value of HKCU\Software\...\NativeMessagingHosts\
//     dev.webmcp.bridge (the uninstall removes it only when it names this
//     install's manifest);
//   - RegKey: a key below HKCU\Software (removed only when empty).
//
// Every component of the path below its root (PREFIX for a binary and the
// extension) is checked with Lstat; a link makes the entry refused, since
// it resolves elsewhere. A path that does not exist passes: there is
// nothing there to remove.
func Check(prefix string, e Entry) error {
	var root string
	switch e.Kind {
	case File:
		if prefix != "" && filepath.Dir(e.Path) == filepath.Join(prefix, "bin") && slices.Contains(Binaries, filepath.Base(e.Path)) {
			root = prefix
		} else if prefix == "" {
			return fmt.Errorf("the record lists %s as a binary, but it is not in PREFIX/share/webmcp-bridge, so it names no binary: %w", e.Path, ErrNotOurs)
		} else {
			return fmt.Errorf("the record lists %s as a binary, but this install's are %s and %s: %w", e.Path, filepath.Join(prefix, "bin", Binaries[0]), filepath.Join(prefix, "bin", Binaries[1]), ErrNotOurs)
		}
	case Tree:
		if prefix != "" && (e.Path == ExtensionDir(prefix) || e.Path == FirefoxExtensionDir(prefix)) {
			root = prefix
		} else if prefix == "" {
			return fmt.Errorf("the record lists %s as the extension's folder, but it is not in PREFIX/share/webmcp-bridge, so it names none: %w", e.Path, ErrNotOurs)
		} else {
			return fmt.Errorf("the record lists %s as the extension's folder, but this install's is %s: %w", e.Path, ExtensionDir(prefix), ErrNotOurs)
		}
	case Manifest:
		// Firefox's folder on Linux is native-messaging-hosts.
		if d := filepath.Base(filepath.Dir(e.Path)); filepath.Base(e.Path) != manifest.FileName || d != "NativeMessagingHosts" && d != "native-messaging-hosts" {
			return fmt.Errorf("the record lists %s as a manifest, but a manifest is NativeMessagingHosts/%s (native-messaging-hosts/%[2]s for Firefox): %w", e.Path, manifest.FileName, ErrNotOurs)
		}
		root = filepath.Dir(filepath.Dir(e.Path))
	case Dir:
		root = filepath.Dir(e.Path)
	case RegValue:
		rest, ok := strings.CutPrefix(e.Path, RegRoot+`Software\`)
		if !ok || !strings.HasSuffix(rest, `\NativeMessagingHosts\`+strings.TrimSuffix(manifest.FileName, ".json")) {
			return fmt.Errorf(`the record lists %s as a registry value, but the install writes only HKCU\Software\...\NativeMessagingHosts\%s: %w`, e.Path, strings.TrimSuffix(manifest.FileName, ".json"), ErrNotOurs)
		}
		return nil
	case RegKey:
		if rest, ok := strings.CutPrefix(e.Path, RegRoot+`Software\`); !ok || rest == "" {
			return fmt.Errorf(`the record lists %s as a registry key, but the install creates keys below HKCU\Software only: %w`, e.Path, ErrNotOurs)
		}
		return nil
	default:
		return fmt.Errorf("the record lists %s as a %q, which no install writes: %w", e.Path, e.Kind, ErrNotOurs)
	}
	return NoLinks(root, e.Path)
}

// NoLinks checks that path is below root and that no component of it below
// root, path itself included, is a symbolic link. It stops at the first
// component that does not exist.
func NoLinks(root, path string) error {
	root, path = filepath.Clean(root), filepath.Clean(path)
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not in %s: %w", path, root, ErrNotOurs)
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(cur)
			return fmt.Errorf("%s is a symbolic link (to %s), so %s resolves elsewhere: %w", cur, to, path, ErrNotOurs)
		}
		if cur != path && !fi.IsDir() {
			return fmt.Errorf("%s is not a folder, so %s is not there: %w", cur, path, ErrNotOurs)
		}
	}
	return nil
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
		if cmd, ok := strings.CutPrefix(line, installerComment); ok {
			r.Installer = strings.TrimSpace(cmd)
			continue
		}
		if id, ok := strings.CutPrefix(line, extensionIDComment); ok {
			id = strings.TrimSpace(id)
			if err := manifest.CheckExtensionID(id); err != nil {
				return nil, true, fmt.Errorf("%s line %d: %w", path, n, err)
			}
			r.AddExtensionID(id)
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		reg := len(f) >= 2 && (f[0] == RegValue || f[0] == RegKey)
		if reg && !strings.HasPrefix(f[1], RegRoot) {
			return nil, true, fmt.Errorf("%s line %d: %q is not %s<tab>HKCU\\KEY[<tab>NOTE]", path, n, line, f[0])
		}
		if len(f) < 2 || (!reg && !filepath.IsAbs(f[1])) {
			return nil, true, fmt.Errorf("%s line %d: %q is not KIND<tab>ABSOLUTE-PATH[<tab>NOTE]", path, n, line)
		}
		e := Entry{Kind: f[0], Path: f[1]}
		if !reg {
			e.Path = filepath.Clean(e.Path)
		}
		if len(f) == 3 {
			e.Note = f[2]
		}
		switch e.Kind {
		case Manifest, File, Tree, Dir, RegValue, RegKey:
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

// AddExtensionID adds id to r.ExtensionIDs unless it is there.
func (r *Record) AddExtensionID(id string) {
	if !slices.Contains(r.ExtensionIDs, id) {
		r.ExtensionIDs = append(r.ExtensionIDs, id)
	}
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
	b.WriteString("# What the installer wrote; its --uninstall removes it. KIND<tab>PATH<tab>NOTE\n")
	if cmd := strings.TrimSpace(strings.ReplaceAll(r.Installer, "\n", " ")); cmd != "" {
		b.WriteString(installerComment + cmd + "\n")
	}
	for _, id := range r.ExtensionIDs {
		b.WriteString(extensionIDComment + id + "\n")
	}
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
