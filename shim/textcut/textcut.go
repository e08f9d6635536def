// Package textcut shortens page-supplied text for display: a tab title in
// a tool's provenance, a summary in a line of the CLI's output.
package textcut

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Runes cuts s to at most n runes (n ≥ 1); a cut text ends with "…", which
// counts as one of the n. Text that fits is returned as it is.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Line flattens s to one line — each run of white space, control
// characters (a terminal's escape sequences among them) and invalid UTF-8
// becomes one space, none at either end — and then cuts it like [Runes].
func Line(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
	}), " ")
	return Runes(s, n)
}
