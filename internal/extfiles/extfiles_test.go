package extfiles_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/extfiles"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Read takes what a browser loads, leaves out the Node tests,
// node_modules and hidden files, and passes manifest.json through the
// caller's function.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"manifest.json": `{"version": "1"}`, "background.js": "b", "ui/panel.html": "p", "lib/x/test/y.js": "kept",
		"test/a.test.js": "t", "node_modules/m/index.js": "m", ".eslintrc": "e", ".git/HEAD": "h", "ui/.hidden": "h",
	})
	if err := os.Symlink("background.js", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	files, err := extfiles.Read(dir, func(b []byte) ([]byte, error) { return bytes.ToUpper(b), nil })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		if f.Name == "manifest.json" && string(f.Data) != `{"VERSION": "1"}` {
			t.Errorf("manifest.json = %s, not through the caller's function", f.Data)
		}
	}
	if want := []string{"background.js", "lib/x/test/y.js", "manifest.json", "ui/panel.html"}; !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	files, _ = extfiles.Read(dir, nil)
	if i := slices.IndexFunc(files, func(f extfiles.File) bool { return f.Name == "manifest.json" }); string(files[i].Data) != `{"version": "1"}` {
		t.Errorf("manifest.json without a function = %s", files[i].Data)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"background.js": "b"})
	if _, err := extfiles.Read(dir, nil); err == nil {
		t.Error("a folder without manifest.json was read")
	}
	write(t, dir, map[string]string{"manifest.json": "{}"})
	if _, err := extfiles.Read(dir, func([]byte) ([]byte, error) { return nil, os.ErrInvalid }); err == nil {
		t.Error("the manifest function's error was lost")
	}
}
