// Package schemas prepares the input schemas of page tools for MCP and
// validates call arguments against them, before the page sees them.
//
// Pages write their schemas by hand or with a library (zod, …); this package
// makes each one fit MCP (an object schema) without changing what it says,
// resolves it once (github.com/google/jsonschema-go, the SDK's validator) and
// caches the result. A schema that cannot be resolved — a remote $ref, a
// draft the validator does not know — is reported once, and its tool's
// arguments then go to the page unchecked.
//
// A page's schema is untrusted input: one past the bounds in limits.go, or
// one whose $refs lead back to themselves without reading any part of the
// arguments, is refused with a *RejectedError (its tool cannot be called),
// and every validation is bounded by the MaxValidation limits, so that no
// schema and no arguments can make the validator run without end or
// exhaust the stack or memory.
package schemas

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Default is the schema of a tool whose page gave none: any object.
var Default = json.RawMessage(`{"type":"object"}`)

// ForMCP returns the schema to advertise for a page's inputSchema raw: raw
// itself when it is an object schema; raw with "type":"object" added when it
// has no type; Default when raw is missing. A schema that cannot describe
// MCP arguments (not a JSON object, or a type other than "object") gives
// Default and a problem that says why.
func ForMCP(raw json.RawMessage) (schema json.RawMessage, problem string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Default, ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Default, "the page's inputSchema is not a JSON object"
	}
	t, ok := obj["type"]
	if !ok {
		obj["type"] = json.RawMessage(`"object"`)
		b, err := json.Marshal(obj)
		if err != nil {
			return Default, fmt.Sprintf("the page's inputSchema cannot be encoded: %v", err)
		}
		return b, ""
	}
	var typ string
	if json.Unmarshal(t, &typ) != nil || typ != "object" {
		return Default, fmt.Sprintf("the page's inputSchema has type %s; MCP tools take an object", t)
	}
	return raw, ""
}

// Validator checks arguments against one resolved schema. It is safe for
// concurrent use.
type Validator struct {
	resolved *jsonschema.Resolved
	graph    *graph
}

// ValidationError says which argument is wrong and how.
type ValidationError struct {
	// Field is the path of the offending field ("q.n", "items[]"), or ""
	// when the problem is with the arguments as a whole (a missing required
	// field is named in Detail).
	Field string
	// Detail is the validator's message.
	Detail string
	// NotObject says that the arguments are not a JSON object at all (or
	// not JSON): no tool takes them, whatever its schema.
	NotObject bool
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("field %q: %s", e.Field, e.Detail)
	}
	return e.Detail
}

// Validate checks args, a JSON object, and returns a *ValidationError if
// they do not fit the schema, or a *LimitError if checking them would pass
// one of the MaxValidation bounds.
func (v *Validator) Validate(args json.RawMessage) error {
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return &ValidationError{Detail: fmt.Sprintf("arguments are not valid JSON: %v", err), NotObject: true}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &ValidationError{Detail: fmt.Sprintf("arguments must be a JSON object, not %s", kind(inst)), NotObject: true}
	}
	var b budget
	if err := b.check(v.graph, sized(inst)); err != nil {
		return err
	}
	if err := v.resolved.Validate(inst); err != nil {
		return describe(err)
	}
	return nil
}

// supportedDrafts are the $schema values the validator understands (it
// refuses others at validation time).
var supportedDrafts = map[string]bool{
	"": true,
	"http://json-schema.org/draft-07/schema#":      true,
	"https://json-schema.org/draft-07/schema#":     true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// Resolve resolves a page's inputSchema for validation (a missing one,
// empty or null, is Default). It refuses, with a *RejectedError, a schema
// past the bounds of CheckBounds, one the extension marked with
// RejectedKeyword, one that holds a schema library's object (zod's
// internals, not JSON Schema), and one with an in-place $ref cycle; other
// errors mean
// that the validator cannot use the schema (a remote $ref, an unknown
// draft).
func Resolve(schema json.RawMessage) (*Validator, error) {
	schema = bytes.TrimSpace(schema)
	if len(schema) == 0 || string(schema) == "null" {
		schema = Default
	}
	if err := CheckBounds(schema); err != nil {
		return nil, err
	}
	if reason := rejectedMark(schema); reason != "" {
		return nil, &RejectedError{Reason: "the browser extension refused it: " + reason}
	}
	if where, vendor := libraryObject(schema); vendor != "" {
		return nil, &RejectedError{Reason: libraryReason(where, vendor)}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON Schema: %w", err)
	}
	if !supportedDrafts[s.Schema] {
		return nil, fmt.Errorf("the schema's draft %q is not supported (draft-07 and 2020-12 are)", s.Schema)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, errors.New(clipReason(err.Error(), 2*maxReason)) // it may quote the page at length
	}
	g, err := buildGraph(&s)
	if err != nil {
		return nil, err
	}
	return &Validator{resolved: r, graph: g}, nil
}

// maxCached bounds a Cache; when full it starts over. Pages reuse a small
// set of schemas, so this is only a guard against unbounded growth.
const maxCached = 1024

// Cache resolves each distinct schema once. The zero value is ready to use
// and safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]cached
}

type cached struct {
	v   *Validator
	err error
}

// Get returns the validator for schema, resolving it on first use. The
// error of a schema that cannot be resolved is cached too; fresh reports
// whether this call resolved it, so that a caller logs a problem once.
func (c *Cache) Get(schema json.RawMessage) (v *Validator, fresh bool, err error) {
	key := sha256.Sum256(bytes.TrimSpace(schema))
	c.mu.Lock()
	if e, ok := c.m[key]; ok {
		c.mu.Unlock()
		return e.v, false, e.err
	}
	c.mu.Unlock()
	v, err = Resolve(schema)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = map[[sha256.Size]byte]cached{}
	}
	c.m[key] = cached{v, err}
	c.mu.Unlock()
	return v, true, err
}

// describe turns the validator's error chain ("validating root: validating
// /properties/q: validating /properties/q/properties/n: type: …") into the
// deepest field and the detail.
func describe(err error) *ValidationError {
	msg := err.Error()
	var field string
	for strings.HasPrefix(msg, "validating ") {
		rest := msg[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		if f, ok := fieldPath(rest[:i]); ok {
			field = f
		}
		msg = rest[i+2:]
	}
	return &ValidationError{Field: field, Detail: plain(msg)}
}

// typeMismatch is the validator's message for a value of the wrong type:
// "type: VALUE has type "GOT", want "WANT"" (or "want one of "A, B"").
// VALUE is Go's %v of the value, "<invalid reflect.Value>" for null.
var typeMismatch = regexp.MustCompile(`(?s)^type: .* has type "([a-z]+)", want (one of )?"([a-z, ]+)"$`)

// bound is the validator's message for a number outside a bound: "minimum:
// 0/1 is less than 1.000000" (the value a fraction, the bound a %f).
var bound = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): (-?[0-9]+(?:/[0-9]+)?) is (?:less than|greater than|less than or equal to|greater than or equal to|not a multiple of) (-?[0-9.e+-]+)$`)

// boundWords say what each numeric bound asks of a value.
var boundWords = map[string]string{
	"minimum":          "must be at least",
	"maximum":          "must be at most",
	"exclusiveMinimum": "must be greater than",
	"exclusiveMaximum": "must be less than",
	"multipleOf":       "must be a multiple of",
}

// length is the validator's message for a string of the wrong length:
// "minLength: "ab" contains 2 Unicode code points, fewer than 3".
var length = regexp.MustCompile(`(?s)^(minLength|maxLength): ".*" contains ([0-9]+) Unicode code points, (?:fewer|more) than ([0-9]+)$`)

// patternMismatch is the validator's message for a string off its
// pattern: "pattern: "VALUE" does not match regular expression "RE"",
// both quoted as Go does (%q).
var patternMismatch = regexp.MustCompile(`(?s)^pattern: ".*" does not match regular expression "(.*)"$`)

// plain rewords the validator's messages that speak Go rather than JSON:
// a wrong type reads "got null, want integer" (a string's value is not
// repeated: it may be long), a number out of bounds "must be at least 1,
// got 0", a string of the wrong length "must be at least 3 characters
// long, got 2", a string off its pattern "does not match the pattern
// "RE"", and a null elsewhere is "null".
func plain(msg string) string {
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("got %s, want %s%s", m[1], m[2], m[3])
	}
	if m := bound.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s %s, got %s", boundWords[m[1]], number(m[3]), number(m[2]))
	}
	if m := length.FindStringSubmatch(msg); m != nil {
		words := "at least"
		if m[1] == "maxLength" {
			words = "at most"
		}
		return fmt.Sprintf("must be %s %s characters long, got %s", words, m[3], m[2])
	}
	if m := patternMismatch.FindStringSubmatch(msg); m != nil {
		return `does not match the pattern "` + m[1] + `"` // as the validator quoted it
	}
	return strings.ReplaceAll(msg, "<invalid reflect.Value>", "null")
}

// number writes the validator's number (a fraction "1/3", or a %f
// "1.000000") as JSON would: "1", "0.5", "0.3333333333333333".
func number(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// fieldPath turns a schema pointer such as /properties/q/items/properties/n
// into the instance path "q[].n". It reports false for pointers that are not
// under the root's properties (the root, $defs, …).
func fieldPath(ptr string) (string, bool) {
	if !strings.HasPrefix(ptr, "/properties/") {
		return "", false
	}
	toks := strings.Split(ptr[1:], "/")
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "properties", "patternProperties":
			if i+1 < len(toks) {
				i++
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(unescape(toks[i]))
			}
		case "items", "additionalItems":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(toks) {
				i++
				b.WriteString("[" + toks[i] + "]")
			}
		case "additionalProperties":
			b.WriteString(".*")
		case "allOf", "anyOf", "oneOf":
			i++ // skip the index
		}
	}
	return b.String(), b.Len() > 0
}

func unescape(tok string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// CheckObject reports, as a *ValidationError with NotObject, whether args
// is not a JSON object; it is the check for tools without a Validator
// (Validate makes the same check as it reads the arguments).
func CheckObject(args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if !json.Valid(args) {
		return &ValidationError{Detail: "arguments are not valid JSON", NotObject: true}
	}
	if len(args) == 0 || args[0] != '{' {
		var v any
		json.Unmarshal(args, &v)
		return &ValidationError{Detail: fmt.Sprintf("arguments must be a JSON object, not %s", kind(v)), NotObject: true}
	}
	return nil
}
