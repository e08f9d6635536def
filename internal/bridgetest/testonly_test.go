package bridgetest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The test-only packages of internal/ (their package documentation says
// so) are imported by tests and by one another, never by what a binary is
// built from.
func TestTestOnlyPackagesStayInTests(t *testing.T) {
	const mod = "github.com/webmcp-bridge/bridge/"
	testOnly := []string{"internal/bidi", "internal/bridgetest", "internal/fakeext", "internal/intruder", "internal/mdlinks"}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		for _, pkg := range testOnly {
			if strings.HasPrefix(rel, pkg+"/") {
				return nil // the test-only packages may use one another
			}
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, pkg := range testOnly {
				if path == mod+pkg {
					t.Errorf("%s imports %s, which is test-only", rel, pkg)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
