package installrec

import (
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
}

func TestLoadRefusesBadLines(t *testing.T) {
	for _, line := range []string{"file\trelative/path", "frob\t/x", "justoneword"} {
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
