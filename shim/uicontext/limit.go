package uicontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Size limits on what a page supplies. The extension applies its own; the
// shim never relies on them.
const (
	// MaxData is the largest provider data, in bytes of compact JSON,
	// that reaches the agent; larger data is replaced by a marker.
	MaxData = 4 << 10
	// MaxPreview is how much of cut data the marker keeps, in bytes.
	MaxPreview = 256

	maxID          = 200  // provider ids
	maxSummary     = 300  // provider summaries, runes
	maxTitle       = 120  // tab titles
	maxURL         = 300  // tab URLs
	maxNote        = 200  // notes of left-out providers
	maxSelection   = 300  // the selected text
	maxElement     = 120  // a focused element's role, name, tag
	maxDescription = 2000 // a provider's description, in the payload
	maxBriefDesc   = 1000 // a provider's description, in the instructions
)

// cutNote is what the bridge's marker says when it cut data.
const cutNote = "data over the 4 KiB limit was cut by the WebMCP bridge; call the page's tools to get the rest"

// Cut is the marker that replaces provider data over the size limit. The
// extension sends the same shape (its own "note", maybe without "bytes")
// when it cut the data first.
type Cut struct {
	Truncated bool   `json:"truncated"`       // always true
	Bytes     int    `json:"bytes,omitempty"` // the size of the whole data
	Preview   string `json:"preview"`         // the start of the data's JSON text
	Note      string `json:"note"`            // what to do for more
}

// CapData returns data as compact JSON, or a [Cut] marker when it is over
// MaxData bytes. Data that is not JSON is dropped (nil) with a reason.
func CapData(data json.RawMessage) (out json.RawMessage, problem string) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Sprintf("its data is not JSON (%v)", err)
	}
	if buf.Len() <= MaxData {
		return buf.Bytes(), ""
	}
	preview := buf.Bytes()[:MaxPreview]
	for len(preview) > 0 && !utf8.Valid(preview) {
		preview = preview[:len(preview)-1]
	}
	b, err := json.Marshal(Cut{Truncated: true, Bytes: buf.Len(), Preview: string(preview) + "…", Note: cutNote})
	if err != nil {
		return nil, fmt.Sprintf("its data could not be cut (%v)", err)
	}
	return b, ""
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

// clip flattens s to one line without control characters and cuts it to n
// runes, marking a cut with "…".
func clip(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
	}), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

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
