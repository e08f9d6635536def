// Package toolnames gives page tools MCP names: valid for the strictest
// clients ([A-Za-z0-9_-], 1 to 64 characters), unique among the tools a shim
// exposes, and stable for each tool's lifetime.
//
// A tool keeps its page's own name (sanitized) while no other tool holds that
// name; only a clash earns a suffix ("echo_2", "echo_3", …). A name is never
// taken from the tool that holds it, so the first of two clashing tools keeps
// the plain name and the second keeps its suffix until it goes. When a tool
// goes, its name goes back to the next tool of the same site with the same
// page name (the app reopened), never to another site's (see [Registry]).
package toolnames

import "strconv"

// MaxLen is the longest name that every MCP client accepts.
const MaxLen = 64

// Fallback is the name given to a tool whose page name is empty.
const Fallback = "tool"

// Sanitize returns name in the MCP name alphabet: every character outside
// [A-Za-z0-9_-] becomes '_' (one per character, not per byte), the result is
// cut to MaxLen characters, and an empty name becomes Fallback.
func Sanitize(name string) string {
	b := make([]byte, 0, min(len(name), MaxLen))
	for _, r := range name {
		if len(b) == MaxLen {
			break
		}
		if valid(r) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	if len(b) == 0 {
		return Fallback
	}
	return string(b)
}

// Valid reports whether name is a valid MCP name: 1 to MaxLen characters,
// each in [A-Za-z0-9_-].
func Valid(name string) bool {
	if len(name) == 0 || len(name) > MaxLen {
		return false
	}
	for _, r := range name {
		if !valid(r) {
			return false
		}
	}
	return true
}

func valid(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// withSuffix returns base with "_n" appended, base cut so that the whole
// stays within MaxLen. base is already sanitized (ASCII only).
func withSuffix(base string, n int) string {
	suffix := "_" + strconv.Itoa(n)
	if len(base)+len(suffix) > MaxLen {
		base = base[:MaxLen-len(suffix)]
	}
	return base + suffix
}
