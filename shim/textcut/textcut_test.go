package textcut

import (
	"fmt"
	"strings"
	"testing"
)

func TestRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"short", 5, "short"},
		{"longer", 5, "long…"},
		{strings.Repeat("é", 50), 40, strings.Repeat("é", 39) + "…"},
		{"  kept\nas is ", 20, "  kept\nas is "},
	} {
		if got := Runes(tc.in, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"  a\tb\r\nc  ", 20, "a b c"},
		{"red \x1b[31mtext\x1b[0m", 20, "red [31mtext [0m"},
		{"bad \xff utf-8", 20, "bad utf-8"},
		{"one two three", 8, "one two…"},
	} {
		if got := Line(tc.in, tc.n); got != tc.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func ExampleLine() {
	fmt.Println(Line("Selected slice\n  CommitNavigation (12.3 ms)", 30))
	// Output: Selected slice CommitNavigati…
}
