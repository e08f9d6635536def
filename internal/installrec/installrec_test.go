package installrec

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "share", FileName)
	r, ok, err := Load(path)
	if err != nil || ok || len(r.Entries) != 0 {
		t.Fatalf("Load of no file = %+v, %v, %v", r, ok, err)
	}
	r.Add(Entry{Kind: File, Path: "/p/bin/webmcp-host"})
	r.Add(Entry{Kind: Manifest, Path: "/h/.config/chromium/NativeMessagingHosts/dev.webmcp.bridge.json", Note: "Chromium"})
	r.Add(Entry{Kind: File, Path: "/p/bin/webmcp-host"}) // once
	r.Installer = "npx webmcp-bridge install"
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	// install.sh appends lines of its own.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("dir\t/p/share\t\n")
	f.Close()
	back, ok, err := Load(path)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := []Entry{{File, "/p/bin/webmcp-host", ""}, {Manifest, "/h/.config/chromium/NativeMessagingHosts/dev.webmcp.bridge.json", "Chromium"}, {Dir, "/p/share", ""}}
	if !slices.Equal(back.Entries, want) {
		t.Errorf("entries = %+v, want %+v", back.Entries, want)
	}
	if got := back.Of(Dir); len(got) != 1 || got[0].Path != "/p/share" {
		t.Errorf("Of(Dir) = %+v", got)
	}
	if back.Installer != "npx webmcp-bridge install" {
		t.Errorf("Installer = %q, want the one saved", back.Installer)
	}
	// The installer line is a comment: a binary that does not know it
	// passes over it, as it does over a record without one.
	if err := os.WriteFile(path, []byte("# installer: ./install.sh\nfile\t/p/bin/webmcp-shim\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if back, _, err := Load(path); err != nil || back.Installer != "./install.sh" || len(back.Entries) != 1 {
		t.Errorf("Load = %+v, %v", back, err)
	}
}

// The extension IDs a store gave are kept, each once, as comments that
// an older binary passes over.
func TestExtensionIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	r, _, _ := Load(path)
	id1, id2 := "abcdefghijklmnopabcdefghijklmnop", "ponmlkjihgfedcbaponmlkjihgfedcba"
	r.AddExtensionID(id1)
	r.AddExtensionID(id2)
	r.AddExtensionID(id1)
	r.Add(Entry{Kind: File, Path: "/p/bin/webmcp-host"})
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "\n# extension-id: "+id1+"\n# extension-id: "+id2+"\n") {
		t.Errorf("the record holds:\n%s", b)
	}
	back, _, err := Load(path)
	if err != nil || !slices.Equal(back.ExtensionIDs, []string{id1, id2}) || len(back.Entries) != 1 {
		t.Errorf("Load = %+v, %v; want IDs %s, %s and one entry", back, err, id1, id2)
	}
}

func TestLoadRefusesBadLines(t *testing.T) {
	for _, line := range []string{"file\trelative/path", "frob\t/x", "justoneword", "# extension-id: NOTANID"} {
		path := filepath.Join(t.TempDir(), FileName)
		os.WriteFile(path, []byte(line+"\n"), 0o644)
		if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Load(%q) = %v, want an error naming the line", line, err)
		}
	}
}

func TestCreatedDirs(t *testing.T) {
	base := t.TempDir()
	got := CreatedDirs(filepath.Join(base, "a", "b"))
	want := []string{filepath.Join(base, "a"), filepath.Join(base, "a", "b")}
	if !slices.Equal(got, want) {
		t.Errorf("CreatedDirs = %v, want %v", got, want)
	}
	if got := CreatedDirs(base); len(got) != 0 {
		t.Errorf("CreatedDirs of an existing folder = %v", got)
	}
	if got := PathFor("/p/bin"); got != "/p/share/webmcp-bridge/install-record" {
		t.Errorf("PathFor = %q", got)
	}
}

func TestPrefix(t *testing.T) {
	if p, ok := Prefix("/p/share/webmcp-bridge/install-record"); !ok || p != "/p" {
		t.Errorf("Prefix = %q, %v; want /p", p, ok)
	}
	for _, path := range []string{"/tmp/install-record", "/p/share/other/install-record", "/p/x/webmcp-bridge/install-record", "/p/share/webmcp-bridge/record"} {
		if p, ok := Prefix(path); ok {
			t.Errorf("Prefix(%q) = %q, want none", path, p)
		}
	}
}

func TestCheck(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "prefix")
	os.MkdirAll(filepath.Join(prefix, "bin"), 0o755)
	other := t.TempDir()
	profile := t.TempDir()
	for _, c := range []struct {
		prefix string
		e      Entry
		ok     bool
	}{
		{prefix, Entry{Kind: File, Path: filepath.Join(prefix, "bin", "webmcp-host")}, true},
		{prefix, Entry{Kind: File, Path: filepath.Join(prefix, "bin", "webmcp-shim")}, true},
		{prefix, Entry{Kind: File, Path: filepath.Join(prefix, "bin", "bash")}, false},
		{prefix, Entry{Kind: File, Path: filepath.Join(other, "bin", "webmcp-host")}, false},
		{"", Entry{Kind: File, Path: filepath.Join(prefix, "bin", "webmcp-host")}, false},
		{prefix, Entry{Kind: Tree, Path: filepath.Join(prefix, "share", "webmcp-bridge", "extension")}, true},
		{prefix, Entry{Kind: Tree, Path: filepath.Join(prefix, "share", "webmcp-bridge", "firefox-extension")}, true},
		{prefix, Entry{Kind: Tree, Path: filepath.Join(prefix, "share", "webmcp-bridge", "other")}, false},
		{prefix, Entry{Kind: Tree, Path: filepath.Join(other, "webmcp-bridge", "extension")}, false},
		{"", Entry{Kind: Tree, Path: filepath.Join(prefix, "share", "webmcp-bridge", "extension")}, false},
		{"", Entry{Kind: Manifest, Path: filepath.Join(profile, "NativeMessagingHosts", "dev.webmcp.bridge.json")}, true},
		{"", Entry{Kind: Manifest, Path: filepath.Join(profile, "NativeMessagingHosts", "other.json")}, false},
		{"", Entry{Kind: Manifest, Path: filepath.Join(profile, "dev.webmcp.bridge.json")}, false},
		{"", Entry{Kind: Manifest, Path: filepath.Join(profile, ".mozilla", "native-messaging-hosts", "dev.webmcp.bridge.json")}, true}, // Firefox
		{"", Entry{Kind: Manifest, Path: filepath.Join(profile, ".mozilla", "native-messaging-hosts", "other.json")}, false},
		{"", Entry{Kind: Dir, Path: other}, true},
		{"", Entry{Kind: "frob", Path: other}, false},
	} {
		err := Check(c.prefix, c.e)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrNotOurs)) {
			t.Errorf("Check(%q, %+v) = %v, want ok %v", c.prefix, c.e, err, c.ok)
		}
	}

	// Through a link, below the root: refused; the root itself may be one.
	os.Symlink(other, filepath.Join(profile, "NativeMessagingHosts"))
	if err := Check("", Entry{Kind: Manifest, Path: filepath.Join(profile, "NativeMessagingHosts", "dev.webmcp.bridge.json")}); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Check of a manifest in a linked folder = %v", err)
	}
	if err := Check("", Entry{Kind: Dir, Path: filepath.Join(profile, "NativeMessagingHosts")}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Check of a linked folder = %v", err)
	}
	linked := filepath.Join(t.TempDir(), "linked")
	os.Symlink(prefix, linked)
	if err := Check(linked, Entry{Kind: File, Path: filepath.Join(linked, "bin", "webmcp-host")}); err != nil {
		t.Errorf("Check below a linked prefix = %v, want nil (the prefix is the user's)", err)
	}
}

func TestNoLinks(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{root, filepath.Dir(root), filepath.Join(root, ".."), filepath.Join(root, "..", "x")} {
		if err := NoLinks(root, p); !errors.Is(err, ErrNotOurs) {
			t.Errorf("NoLinks(root, %q) = %v, want it refused: not below root", p, err)
		}
	}
	if err := NoLinks(root, filepath.Join(root, "a", "b")); err != nil {
		t.Errorf("NoLinks of a path that is not there = %v", err)
	}
	os.WriteFile(filepath.Join(root, "f"), nil, 0o644)
	if err := NoLinks(root, filepath.Join(root, "f", "g")); !errors.Is(err, ErrNotOurs) {
		t.Errorf("NoLinks through a file = %v", err)
	}
	os.Symlink(root, filepath.Join(root, "l"))
	if err := NoLinks(root, filepath.Join(root, "l")); !errors.Is(err, ErrNotOurs) {
		t.Errorf("NoLinks of a link = %v", err)
	}
}

// Registry entries keep their HKCU\ path as written, and Check takes only
// the host's keys below HKCU\Software.
func TestRegistryEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	value := `HKCU\Software\Google\Chrome\NativeMessagingHosts\dev.webmcp.bridge`
	r := &Record{Path: path}
	r.Add(Entry{Kind: RegKey, Path: `HKCU\Software\Chromium`})
	r.Add(Entry{Kind: RegValue, Path: value, Note: "Chrome, Brave"})
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(path)
	if err != nil || !slices.Equal(back.Entries, r.Entries) {
		t.Fatalf("Load = %+v, %v; want %+v", back, err, r.Entries)
	}
	for _, e := range back.Entries {
		if err := Check("", e); err != nil {
			t.Errorf("Check(%+v) = %v", e, err)
		}
	}
	for _, e := range []Entry{
		{RegValue, `HKCU\Software\Google\Chrome\NativeMessagingHosts\com.other.host`, ""},
		{RegValue, `HKCU\Environment\NativeMessagingHosts\dev.webmcp.bridge`, ""},
		{RegKey, `HKCU\Software\`, ""},
		{RegKey, `HKCU\Environment`, ""},
	} {
		if err := Check("", e); !errors.Is(err, ErrNotOurs) {
			t.Errorf("Check(%+v) = %v, want ErrNotOurs", e, err)
		}
	}
	os.WriteFile(path, []byte("regvalue\tSoftware\\x\t\n"), 0o644)
	if _, _, err := Load(path); err == nil {
		t.Error("Load took a registry entry without HKCU\\")
	}
}
