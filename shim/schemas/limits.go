package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The bounds of a page's inputSchema. A schema past any of them is refused
// when its tool arrives: the tool is still listed, with a note in its
// description, and calling it is an error that says why. The browser
// extension applies the same bounds (extension/lib/schema.js) before a
// schema leaves the page, and testdata/limits/schema.json holds the numbers
// both sides are tested against.
const (
	// MaxSchemaBytes is the largest inputSchema, in bytes of its compact
	// JSON text as JSON.stringify writes it (UTF-8).
	MaxSchemaBytes = 128 << 10
	// MaxSchemaDepth is the deepest nesting of objects and arrays in an
	// inputSchema; the schema object itself is at depth 1. A property
	// level of a schema takes two ("properties", then the property).
	MaxSchemaDepth = 64
	// MaxSchemaNodes is the most JSON values (objects, arrays, strings,
	// numbers, booleans and nulls, not counting object keys) an
	// inputSchema may hold.
	MaxSchemaNodes = 10000
)

// The bounds of checking one call's arguments against a schema. They keep
// the validator's work, its recursion and the text of its errors bounded
// whatever the schema and the arguments; a call past one gets an error
// result and never reaches the page.
const (
	// MaxValidationSteps is the most (subschema, value) pairs the
	// validator may visit for one call.
	MaxValidationSteps = 1_000_000
	// MaxValidationDepth is the deepest the validator may recurse for one
	// call: one level per subschema it enters ($ref, allOf, properties, …).
	MaxValidationDepth = 1000
	// MaxValidationErrorBytes bounds the text the validator may build for
	// one call's error messages (it quotes the offending values, and keeps
	// the message of every branch of an anyOf).
	MaxValidationErrorBytes = 32 << 20
)

// RejectedKeyword is the keyword with which the browser extension marks a
// schema it refused before it left the page: it sends
// {"type":"object","x-webmcp-rejected":"<why>"} instead, and the shim
// refuses that schema with the reason given.
const RejectedKeyword = "x-webmcp-rejected"

// maxReason bounds the reason quoted from a RejectedKeyword.
const maxReason = 300

// RejectedError says why the bridge refuses a page's inputSchema: it is
// past a bound, or it would make the validator recurse without end. The
// tool cannot be called until the page changes its schema.
type RejectedError struct {
	// Reason says what is wrong, e.g. "it is nested more than 64 levels
	// deep; the bridge accepts at most 64".
	Reason string
}

// Error implements the error interface.
func (e *RejectedError) Error() string {
	return "the WebMCP bridge refuses this tool's inputSchema: " + e.Reason
}

func rejectf(format string, args ...any) *RejectedError {
	return &RejectedError{Reason: clipReason(fmt.Sprintf(format, args...), 2*maxReason)}
}

// clipReason cuts a reason that quotes the page (a $ref, a key) to about n
// bytes.
func clipReason(reason string, n int) string {
	if len(reason) <= n {
		return reason
	}
	for n > 0 && !utf8.RuneStart(reason[n]) {
		n--
	}
	return reason[:n] + "…"
}

// CheckBounds reports, as a *RejectedError, whether the page's inputSchema
// raw is past MaxSchemaBytes, MaxSchemaDepth or MaxSchemaNodes, or is not
// JSON. It reads raw token by token, stops at the first bound crossed, and
// never recurses, so any input is safe. A missing schema (empty or null)
// passes.
func CheckBounds(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if len(raw) > 6*MaxSchemaBytes+64 { // past any escaping: surely too big
		return rejectf("it is %d bytes of JSON; the bridge accepts at most %d", len(raw), MaxSchemaBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var size, depth, nodes int
	// inObject[i] reports whether nesting level i+1 is an object; first
	// tracks whether the next member of the innermost container is its
	// first, and key whether the next string in an object is a key.
	var inObject []bool
	first, key := false, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rejectf("it is not valid JSON (%v)", err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			size++
			inObject = inObject[:len(inObject)-1]
			depth--
			first = false
			key = len(inObject) > 0 && inObject[len(inObject)-1]
			continue
		}
		// A key, or a value: count the separator before it.
		if len(inObject) > 0 && !first {
			size++ // "," before a member, or ":" after a key
		}
		first = false
		if key {
			size += jsonStringLen(tok.(string))
			key = false
			continue
		}
		nodes++
		if nodes > MaxSchemaNodes {
			return rejectf("it holds more than %d JSON values; the bridge accepts at most %d", MaxSchemaNodes, MaxSchemaNodes)
		}
		switch v := tok.(type) {
		case json.Delim:
			size++
			depth++
			if depth > MaxSchemaDepth {
				return rejectf("it is nested more than %d levels deep; the bridge accepts at most %d", MaxSchemaDepth, MaxSchemaDepth)
			}
			inObject = append(inObject, v == '{')
			first = true
			key = v == '{'
			continue
		case string:
			size += jsonStringLen(v)
		case json.Number:
			size += len(v)
		case bool:
			size += 4
			if !v {
				size++
			}
		case nil:
			size += 4
		}
		if size > MaxSchemaBytes {
			return rejectf("it is more than %d bytes of JSON; the bridge accepts at most %d", MaxSchemaBytes, MaxSchemaBytes)
		}
		// After a value in an object, the next string is a key.
		key = len(inObject) > 0 && inObject[len(inObject)-1]
	}
	if size > MaxSchemaBytes {
		return rejectf("it is %d bytes of JSON; the bridge accepts at most %d", size, MaxSchemaBytes)
	}
	if !json.Valid(raw) {
		return rejectf("it is not valid JSON")
	}
	return nil
}

// jsonStringLen is the length of s as JSON.stringify writes it, in UTF-8:
// quotes, two-byte escapes for " \ \b \f \n \r \t, six bytes for other
// control characters.
func jsonStringLen(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20:
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// rejectedMark returns the reason of a schema the extension marked with
// RejectedKeyword, or "".
func rejectedMark(raw json.RawMessage) string {
	if !bytes.Contains(raw, []byte(RejectedKeyword)) {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	v, ok := obj[RejectedKeyword]
	if !ok {
		return ""
	}
	var reason string
	if json.Unmarshal(v, &reason) != nil || reason == "" {
		reason = "no reason given"
	}
	return clipReason(reason, maxReason)
}

// LimitError says that checking a call's arguments against the tool's
// schema would pass one of the MaxValidation bounds. Nothing was sent to
// the page.
type LimitError struct {
	// Limit names the bound, e.g. "MaxValidationSteps".
	Limit string
	// Detail says what crossed it.
	Detail string
}

// Error implements the error interface.
func (e *LimitError) Error() string {
	return fmt.Sprintf("the arguments are too large or too deeply nested to check against this tool's inputSchema: %s (%s)", e.Detail, e.Limit)
}

// IsRejected reports whether err says the schema itself is refused.
func IsRejected(err error) bool {
	var r *RejectedError
	return errors.As(err, &r)
}
