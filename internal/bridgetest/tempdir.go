package bridgetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TempDir is a new temporary folder that the test's cleanup removes entry
// by entry, deepest first, ignoring errors: t.TempDir's os.RemoveAll fails
// on files under Wine ("Invalid function"), and fails the test.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wmt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { RemoveTree(dir) })
	return dir
}

// RemoveTree removes dir and what is in it one entry at a time, deepest
// first, and ignores errors (see [TempDir]).
func RemoveTree(dir string) {
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	slices.Reverse(paths)
	for _, p := range paths {
		os.Remove(p)
	}
}
