package uicontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/shim/textcut"
)

// Size limits on what a page supplies: the numbers of
// testdata/limits/uicontext.json, which limits_test.go checks.
//
// The extension is the side that cuts: it cuts summaries, descriptions,
// notes, ids, the selection and the focused element's fields, and replaces
// data over MaxData bytes by a [Cut] marker, before anything leaves the
// page's frame. The shim trusts those cuts: it guards with the same numbers
// (lengths in runes, which never exceed the extension's UTF-16 code units),
// so that what a conforming extension sends passes unchanged, and only a
// peer that breaks the limits (an older or a fake extension, or another
// client of the host) is cut here. Tab titles and URLs come from the
// browser, not the page's context, and are cut only here.
const (
	// MaxData is the largest provider data, in UTF-8 bytes of compact JSON
	// as the page wrote it, that reaches the agent; larger data is replaced
	// by a marker.
	MaxData = 4 << 10
	// MaxPreview is how much of cut data the marker keeps, in bytes.
	MaxPreview = 1 << 10

	maxID          = 200  // provider ids
	maxSummary     = 500  // provider summaries, runes
	maxNote        = 300  // notes of left-out providers
	maxSelection   = 300  // the selected text
	maxElement     = 120  // a focused element's role, name, tag
	maxDescription = 2000 // a provider's description, in the payload

	// Limits of the shim's own.
	maxTitle        = 120  // tab titles
	maxURL          = 300  // tab URLs
	maxBriefDesc    = 1000 // a provider's description, in the instructions
	maxBlockPreview = 200  // the preview of cut data, in a <ui_context> block
)

// CutNote is what the marker of cut data says, the extension's and the
// shim's alike.
const CutNote = "data over 4 KiB was cut: call the page's tools for the rest"

// Cut is the marker that replaces provider data over the size limit, as the
// extension writes it (lib/snapshot.js) and the shim's guard does.
type Cut struct {
	Truncated bool   `json:"truncated"`       // always true
	Bytes     int    `json:"bytes,omitempty"` // the size of the whole data
	Preview   string `json:"preview"`         // the start of the data's JSON text, at most MaxPreview bytes
	Note      string `json:"note"`            // what to do for more: CutNote
}

// CapData returns data as compact JSON, or a [Cut] marker when it is over
// MaxData bytes. Data that is not JSON is dropped (nil) with a reason. The
// size is that of the JSON text as the page's JSON.stringify wrote it
// (see pageSize), so that data the extension let through is never cut here.
func CapData(data json.RawMessage) (out json.RawMessage, problem string) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Sprintf("its data is not JSON (%v)", err)
	}
	size := buf.Len()
	if size <= MaxData {
		return buf.Bytes(), ""
	}
	if size = pageSize(buf.Bytes()); size <= MaxData {
		return buf.Bytes(), ""
	}
	preview := buf.Bytes()[:MaxPreview]
	for len(preview) > 0 && !utf8.Valid(preview) {
		preview = preview[:len(preview)-1]
	}
	b, err := json.Marshal(Cut{Truncated: true, Bytes: size, Preview: string(preview), Note: CutNote})
	if err != nil {
		return nil, fmt.Sprintf("its data could not be cut (%v)", err)
	}
	return b, ""
}

// pageSize is the length of the compact JSON text b as JavaScript's
// JSON.stringify writes it, which the extension measures: the browser's
// native messaging and Go's encoder escape "<" (and Go also ">" and "&") as
// \u003c, and U+2028 and U+2029 as \u2028 and \u2029, where JSON.stringify
// writes the character itself.
func pageSize(b []byte) int {
	n := len(b)
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' || i+6 > len(b) {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		switch strings.ToLower(string(b[i+2 : i+6])) {
		case "003c", "003e", "0026":
			n -= 5 // one byte in JSON.stringify's text
		case "2028", "2029":
			n -= 3 // three bytes of UTF-8
		}
		i += 5
	}
	return n
}

// asCut reads data as a cut marker, the bridge's or the extension's.
func asCut(data json.RawMessage) (Cut, bool) {
	if len(data) == 0 || data[0] != '{' {
		return Cut{}, false
	}
	var m struct {
		Truncated bool            `json:"truncated"`
		Bytes     int             `json:"bytes"`
		Preview   json.RawMessage `json:"preview"`
		Note      string          `json:"note"`
	}
	if json.Unmarshal(data, &m) != nil || !m.Truncated {
		return Cut{}, false
	}
	c := Cut{Truncated: true, Bytes: m.Bytes, Note: m.Note}
	if err := json.Unmarshal(m.Preview, &c.Preview); err != nil {
		c.Preview = string(m.Preview) // not a string: its JSON
	}
	return c, true
}

// clip flattens s to one line and cuts it to n characters (textcut.Line).
func clip(s string, n int) string { return textcut.Line(s, n) }

// tagPattern matches the start of an opening or closing ui_context or
// pinned_context tag, however spaced or cased.
var tagPattern = regexp.MustCompile(`(?i)<(\s*/?\s*(?:ui_context|pinned_context))`)

// Neutralize makes page-supplied text unable to open or close the
// <ui_context> and <pinned_context> blocks: the "<" of such a tag becomes
// "‹", which reads the same to a person and to a model but is no tag.
func Neutralize(s string) string {
	return tagPattern.ReplaceAllString(s, "‹$1")
}

// neutralizeJSON does the same for compact JSON text, where "<" can only
// occur inside strings: it becomes the escape \u003c, so that the JSON keeps
// its value.
func neutralizeJSON(b []byte) []byte {
	return tagPattern.ReplaceAll(b, []byte(`\u003c$1`))
}
