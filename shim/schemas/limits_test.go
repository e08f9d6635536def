package schemas

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// sharedLimits is testdata/limits/schema.json, which the extension's test
// reads too.
type sharedLimits struct {
	MaxBytes int `json:"maxBytes"`
	MaxDepth int `json:"maxDepth"`
	MaxNodes int `json:"maxNodes"`
	Cases    []struct {
		Name   string `json:"name"`
		Nest   int    `json:"nest"`
		Bytes  int    `json:"bytes"`
		Fill   string `json:"fill"`
		Values int    `json:"values"`
		OK     bool   `json:"ok"`
	} `json:"cases"`
}

func readSharedLimits(t *testing.T) sharedLimits {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "limits", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l sharedLimits
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// nested is n objects inside each other: {"p":{"p":{}}} for 2.
func nested(n int) string {
	return strings.Repeat(`{"p":`, n-1) + "{}" + strings.Repeat("}", n-1)
}

// described is {"description":"…"} of exactly n bytes: copies of fill,
// then "a"s.
func described(n int, fill string) string {
	unit := jsonStringLen(fill) - 2
	room := n - len(`{"description":""}`)
	k := room / unit
	s, _ := json.Marshal(map[string]string{"description": strings.Repeat(fill, k) + strings.Repeat("a", room-k*unit)})
	return string(s)
}

// enumOf is {"enum":[0,…]} holding n JSON values in all.
func enumOf(n int) string {
	return `{"enum":[` + strings.TrimSuffix(strings.Repeat("0,", n-2), ",") + `]}`
}

func TestSharedLimits(t *testing.T) {
	l := readSharedLimits(t)
	if l.MaxBytes != MaxSchemaBytes || l.MaxDepth != MaxSchemaDepth || l.MaxNodes != MaxSchemaNodes {
		t.Fatalf("testdata/limits/schema.json has %d bytes, depth %d, %d values; the shim %d, %d, %d: keep them (and extension/lib/schema.js) equal",
			l.MaxBytes, l.MaxDepth, l.MaxNodes, MaxSchemaBytes, MaxSchemaDepth, MaxSchemaNodes)
	}
	for _, c := range l.Cases {
		var schema string
		switch {
		case c.Nest > 0:
			schema = nested(c.Nest)
		case c.Bytes > 0:
			schema = described(c.Bytes, c.Fill)
			if !strings.Contains(c.Fill, "\n") && len(schema) != c.Bytes {
				t.Fatalf("%s: built %d bytes, want %d", c.Name, len(schema), c.Bytes)
			}
		case c.Values > 0:
			schema = enumOf(c.Values)
		}
		err := CheckBounds(json.RawMessage(schema))
		if (err == nil) != c.OK {
			t.Errorf("%s: CheckBounds = %v, want ok %v", c.Name, err, c.OK)
		}
		if err != nil && !IsRejected(err) {
			t.Errorf("%s: %v is not a *RejectedError", c.Name, err)
		}
		// Resolve applies the same bounds.
		if _, err := Resolve(json.RawMessage(schema)); (err == nil) != c.OK {
			t.Errorf("%s: Resolve = %v, want ok %v", c.Name, err, c.OK)
		}
	}
}

func TestCheckBoundsCountsAsJavaScript(t *testing.T) {
	// Whitespace, HTML escapes from Go's encoder and \u escapes do not
	// count: the size is that of JSON.stringify's output.
	for _, tc := range []struct{ in, js string }{
		{`{ "a" : [ 1 , true , null , "x<y" ] }`, `{"a":[1,true,null,"x<y"]}`},
		{`{"a":"\u003c\u00e9\u0001\t"}`, `{"a":"<é\u0001\t"}`},
		{`{"a":{},"b":[],"c":false}`, `{"a":{},"b":[],"c":false}`},
	} {
		if err := CheckBounds(json.RawMessage(tc.in)); err != nil {
			t.Fatal(err)
		}
		if got, want := measure(tc.in), len(tc.js); got != want {
			t.Errorf("size of %s = %d, want %d (%s)", tc.in, got, want, tc.js)
		}
	}
	for _, bad := range []string{`{"a":}`, `{}{}`, `{"a":1`, `[1,2`} {
		if err := CheckBounds(json.RawMessage(bad)); !IsRejected(err) {
			t.Errorf("CheckBounds(%s) = %v, want a rejection", bad, err)
		}
	}
}

// measure finds the size CheckBounds gives raw: the smallest byte bound it
// passes, found by padding raw's first object with a description.
func measure(raw string) int {
	// {"a":…} → {"description":"aaa","a":…}: the padding adds 18+k bytes.
	for k := 0; ; k++ {
		pad := `{"description":"` + strings.Repeat("a", MaxSchemaBytes-k-18-1) + `",` + raw[1:]
		if CheckBounds(json.RawMessage(pad)) == nil {
			return k + 2
		}
		if k > 1000 {
			return -1
		}
	}
}

func TestMaxSchemaBytesMatchesUTF8(t *testing.T) {
	s := described(MaxSchemaBytes, "é")
	if n := len(s); n != MaxSchemaBytes || !utf8.ValidString(s) {
		t.Fatalf("built %d bytes", n)
	}
}

// The schemas below made the validator recurse until the Go runtime died
// ("goroutine stack exceeds 1000000000-byte limit"), taking every agent's
// bridge with it. They are refused when they arrive.
func TestInPlaceCyclesAreRefused(t *testing.T) {
	for _, schema := range []string{
		`{"$ref":"#"}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"anyOf":[{"type":"string"},{"$ref":"#"}]}`,
		`{"oneOf":[{"$ref":"#"}]}`,
		`{"not":{"$ref":"#"}}`,
		`{"if":{"$ref":"#"}}`,
		`{"if":true,"then":{"$ref":"#"}}`,
		`{"dependentSchemas":{"a":{"$ref":"#"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":{"$ref":"#"}}}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		`{"definitions":{"a~b/c":{"$ref":"#/definitions/a~0b~1c"}},"properties":{"x":{"$ref":"#/definitions/a~0b~1c"}}}`,
		`{"$defs":{"a":{"$anchor":"a","allOf":[{"$ref":"#a"}]}},"$ref":"#a"}`,
		`{"$id":"https://example.com/root.json","$defs":{"s":{"$id":"sub.json","$ref":"root.json"}},"$ref":"sub.json"}`,
		`{"$id":"https://example.com/root.json","$ref":"https://example.com/root.json#"}`,
		`{"$dynamicAnchor":"n","allOf":[{"$dynamicRef":"#n"}]}`,
	} {
		_, err := Resolve(json.RawMessage(schema))
		var rej *RejectedError
		if !errors.As(err, &rej) {
			t.Errorf("Resolve(%s) = %v, want a *RejectedError", schema, err)
			continue
		}
		if !strings.Contains(err.Error(), "never end") {
			t.Errorf("Resolve(%s): %q does not say why", schema, err)
		}
	}
}

func TestRecursionThroughPropertiesIsBounded(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"x":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`,
		`{"$defs":{"n":{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},"additionalProperties":false}},"$ref":"#/$defs/n"}`,
	} {
		v := mustResolve(t, schema)
		// A deep tree that fits passes; a wrong leaf is found.
		deep := func(n int, leaf string) string {
			if strings.Contains(schema, "kids") {
				return strings.Repeat(`{"kids":[`, n) + leaf + strings.Repeat("]}", n)
			}
			return strings.Repeat(`{"x":`, n) + leaf + strings.Repeat("}", n)
		}
		if err := v.Validate(json.RawMessage(deep(100, "{}"))); err != nil {
			t.Errorf("%s: 100 levels: %v", schema, err)
		}
		bad := `{"y":1}`
		switch {
		case strings.Contains(schema, "kids"):
			bad = `5`
		case !strings.Contains(schema, "$defs"):
			bad = `{"x":5}`
		}
		if err := v.Validate(json.RawMessage(deep(100, bad))); err == nil || IsRejected(err) {
			t.Errorf("%s: a wrong leaf 100 levels down: %v", schema, err)
		}
		// Arguments nested nearly as deep as encoding/json allows: a clear
		// error, no crash.
		var le *LimitError
		if err := v.Validate(json.RawMessage(deep(4000, "{}"))); !errors.As(err, &le) || le.Limit != "MaxValidationDepth" {
			t.Errorf("%s: 4000 levels: %v, want a MaxValidationDepth *LimitError", schema, err)
		}
	}
}

func TestExponentialBranchingIsBounded(t *testing.T) {
	// Each level checks the next twice: 2^40 visits for 40 levels.
	v := mustResolve(t, `{"$defs":{"n":{"allOf":[{"properties":{"x":{"$ref":"#/$defs/n"}}},{"properties":{"x":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`)
	var le *LimitError
	args := strings.Repeat(`{"x":`, 40) + "{}" + strings.Repeat("}", 40)
	if err := v.Validate(json.RawMessage(args)); !errors.As(err, &le) || le.Limit != "MaxValidationSteps" {
		t.Fatalf("Validate = %v, want a MaxValidationSteps *LimitError", err)
	}
	if !strings.Contains(le.Error(), "too large or too deeply nested") {
		t.Errorf("message %q", le)
	}
	// Ten levels are fine.
	args = strings.Repeat(`{"x":`, 10) + "{}" + strings.Repeat("}", 10)
	if err := v.Validate(json.RawMessage(args)); err != nil {
		t.Errorf("10 levels: %v", err)
	}
}

func TestErrorTextIsBounded(t *testing.T) {
	// anyOf keeps every branch's error, each quoting the value: 30×30
	// branches quoting a 100 KB object would build 90 MB of text.
	var inner []string
	for range 30 {
		inner = append(inner, `{"type":"string"}`)
	}
	var outer []string
	for range 30 {
		outer = append(outer, `{"anyOf":[`+strings.Join(inner, ",")+`]}`)
	}
	v := mustResolve(t, `{"properties":{"a":{"anyOf":[`+strings.Join(outer, ",")+`]}}}`)
	var le *LimitError
	big := `{"a":{"t":"` + strings.Repeat("x", 100_000) + `"}}`
	if err := v.Validate(json.RawMessage(big)); !errors.As(err, &le) || le.Limit != "MaxValidationErrorBytes" {
		t.Fatalf("Validate = %v, want a MaxValidationErrorBytes *LimitError", err)
	}
	// A small value gets the validator's own answer.
	var ve *ValidationError
	if err := v.Validate(json.RawMessage(`{"a":{"t":1}}`)); !errors.As(err, &ve) {
		t.Fatalf("small value: %v, want a *ValidationError", err)
	}
	if err := v.Validate(json.RawMessage(`{"a":"s"}`)); err != nil {
		t.Fatalf("string: %v", err)
	}
	// contains tries every item and drops each error it built.
	v = mustResolve(t, `{"properties":{"a":{"contains":{"anyOf":[`+strings.Join(inner, ",")+`]}}}}`)
	item := `{"t":"` + strings.Repeat("x", 10_000) + `"}`
	items := strings.TrimSuffix(strings.Repeat(item+",", 1000), ",")
	if err := v.Validate(json.RawMessage(`{"a":[` + items + `]}`)); !errors.As(err, &le) || le.Limit != "MaxValidationErrorBytes" {
		t.Fatalf("contains: %v, want a MaxValidationErrorBytes *LimitError", err)
	}
	if err := v.Validate(json.RawMessage(`{"a":[` + item + `,"s"]}`)); err != nil {
		t.Fatalf("contains, two items: %v", err)
	}
}

func TestExtensionMark(t *testing.T) {
	_, err := Resolve(json.RawMessage(`{"type":"object","x-webmcp-rejected":"it is nested more than 64 levels deep"}`))
	var rej *RejectedError
	if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "extension") || !strings.Contains(rej.Reason, "64 levels") {
		t.Fatalf("Resolve = %v", err)
	}
	long := strings.Repeat("é", 400)
	_, err = Resolve(json.RawMessage(`{"x-webmcp-rejected":"` + long + `"}`))
	if !errors.As(err, &rej) || len(rej.Reason) > maxReason+60 || !utf8.ValidString(rej.Reason) {
		t.Fatalf("long reason: %d bytes, valid %v", len(rej.Reason), utf8.ValidString(rej.Reason))
	}
}

func TestReasonsAreShort(t *testing.T) {
	long := strings.Repeat("k", 50_000)
	for _, schema := range []string{
		`{"properties":{"x":{"$ref":"#/$defs/` + long + `"}}}`,
		`{"$defs":{"` + long + `":{"$ref":"#/$defs/` + long + `"}},"properties":{"x":{"$ref":"#/$defs/` + long + `"}}}`,
	} {
		_, err := Resolve(json.RawMessage(schema))
		if err == nil || len(err.Error()) > 2*maxReason+100 {
			t.Errorf("Resolve: %d bytes of error: %.200v", len(err.Error()), err)
		}
	}
}

func TestOrdinarySchemasStillWork(t *testing.T) {
	for _, schema := range []string{
		``,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/id"},"b":{"$ref":"#/$defs/id"}},"$defs":{"id":{"type":"integer"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"p":{"type":"string"}},"properties":{"q":{"$ref":"#/definitions/p"}}}`,
		`{"$id":"https://example.com/t.json","$defs":{"s":{"$anchor":"s","type":"string"}},"properties":{"q":{"$ref":"#s"},"r":{"$ref":"https://example.com/t.json#/$defs/s"}}}`,
		`{"properties":{"a":{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"boolean"}}}}`,
	} {
		v := mustResolve(t, schema)
		if err := v.Validate(json.RawMessage(`{}`)); err != nil {
			t.Errorf("%s: {}: %v", schema, err)
		}
	}
	v := mustResolve(t, `{"$id":"https://example.com/t.json","$defs":{"s":{"$anchor":"s","type":"string"}},"properties":{"q":{"$ref":"#s"}}}`)
	if err := v.Validate(json.RawMessage(`{"q":1}`)); err == nil {
		t.Error("an anchor's type is not checked")
	}
	// A large, legitimate argument stays within the bounds.
	v = mustResolve(t, `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"]}}}}`)
	var rows []string
	for range 20000 {
		rows = append(rows, `{"id":1,"name":"slice"}`)
	}
	if err := v.Validate(json.RawMessage(`{"rows":[` + strings.Join(rows, ",") + `]}`)); err != nil {
		t.Errorf("20,000 rows: %v", err)
	}
	// An 8 MiB nullable string (zod's .nullable()): the null branch fails
	// and quotes the value once.
	v = mustResolve(t, `{"type":"object","properties":{"content":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["content"]}`)
	if err := v.Validate(json.RawMessage(`{"content":"` + strings.Repeat("x", 8<<20) + `"}`)); err != nil {
		t.Errorf("8 MiB nullable string: %v", err)
	}
	// 10,000 numbers, each checked against 15 subschemas.
	var br []string
	for range 15 {
		br = append(br, `{"type":"integer","minimum":0}`)
	}
	v = mustResolve(t, `{"properties":{"a":{"items":{"allOf":[`+strings.Join(br, ",")+`]}}}}`)
	if err := v.Validate(json.RawMessage(`{"a":[` + strings.TrimSuffix(strings.Repeat("1,", 10000), ",") + `]}`)); err != nil {
		t.Errorf("10,000 items: %v", err)
	}
	var ve *ValidationError
	if err := v.Validate(json.RawMessage(`{"a":[` + strings.Repeat("1,", 9999) + `-1]}`)); !errors.As(err, &ve) || ve.Field != "a[]" {
		t.Errorf("10,000 items, the last wrong: %v", err)
	}
}
