package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSchema runs a page's schema and an agent's arguments through the
// whole path — the bounds, resolution, the map of $refs, the budget and
// the validator — which must answer, never crash or hang. `go test` runs
// the seeds (here and in testdata/fuzz/FuzzSchema); CI fuzzes briefly:
//
//	go test ./shim/schemas -run '^$' -fuzz FuzzSchema -fuzztime 30s
func FuzzSchema(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"$ref":"#"}`, `{}`},
		{`{"allOf":[{"$ref":"#"}]}`, `{}`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `{}`},
		{`{"properties":{"x":{"$ref":"#"}}}`, `{"x":{"x":{"x":{}}}}`},
		{`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`, `{"kids":[{"kids":[]},{"kids":[1]}]}`},
		{`{"$defs":{"n":{"allOf":[{"properties":{"x":{"$ref":"#/$defs/n"}}},{"properties":{"x":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`, `{"x":{"x":{"x":{"x":{}}}}}`},
		{`{"anyOf":[{"anyOf":[{"type":"string"},{"type":"number"}]},{"not":{"type":"object"}}]}`, `{"a":"b"}`},
		{`{"$dynamicAnchor":"n","properties":{"x":{"$dynamicRef":"#n"}}}`, `{"x":{"x":1}}`},
		{`{"$id":"https://e.com/r.json","$defs":{"s":{"$id":"s.json","$anchor":"a","type":"string"}},"properties":{"q":{"$ref":"s.json#a"}}}`, `{"q":"v"}`},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"},"properties":{"p":{"patternProperties":{"^a":{"type":"integer"}},"propertyNames":{"maxLength":3}}}}`, `{"p":{"ab":1,"abcd":2}}`},
		{`{"x-webmcp-rejected":"too deep"}`, `{}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#a","type":"string"}},"properties":{"p":{"$ref":"#a"},"q":{"$ref":"#/definitions/a"}}}`, `{"p":"x","q":1}`},
		{`{"$defs":{"a b":{"type":"string"},"c/d":{"$ref":"#/$defs/a%20b"}},"properties":{"p":{"$ref":"#/$defs/c~1d"}},"items":[{"type":"string"}]}`, `{"p":"x"}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		_ = CheckBounds(schema)
		v, err := Resolve(json.RawMessage(schema))
		if err != nil {
			// The bridge follows $refs as jsonschema-go does: it never
			// refuses one that jsonschema-go resolved.
			if strings.Contains(err.Error(), "cannot follow") {
				t.Errorf("Resolve(%s): %v", schema, err)
			}
			return
		}
		_ = v.Validate(json.RawMessage(args))
	})
}
