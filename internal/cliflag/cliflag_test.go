package cliflag

import (
	"flag"
	"slices"
	"testing"
)

func TestStringsCollectsInOrder(t *testing.T) {
	var s Strings
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&s, "dir", "a folder (repeatable)")
	if err := fs.Parse([]string{"-dir", "a", "-dir", "b"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s, Strings{"a", "b"}) || s.String() != "a,b" {
		t.Errorf("got %v (%q), want [a b]", s, s.String())
	}
}
