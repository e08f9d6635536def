package schemas

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestForMCP(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		problem        bool
	}{
		{"missing", ``, `{"type":"object"}`, false},
		{"null", `null`, `{"type":"object"}`, false},
		{"object passes through", `{"type":"object","properties":{"id":{"type":"integer"}}}`, `{"type":"object","properties":{"id":{"type":"integer"}}}`, false},
		{"no type", `{"properties":{"id":{"type":"integer"}}}`, `{"properties":{"id":{"type":"integer"}},"type":"object"}`, false},
		{"array", `[1]`, `{"type":"object"}`, true},
		{"string schema", `{"type":"string"}`, `{"type":"object"}`, true},
		{"type list", `{"type":["object","null"]}`, `{"type":"object"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := ForMCP(json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("schema = %s, want %s", got, tc.want)
			}
			if (problem != "") != tc.problem {
				t.Errorf("problem = %q, want one: %v", problem, tc.problem)
			}
		})
	}
}

func mustResolve(t *testing.T, schema string) *Validator {
	t.Helper()
	v, err := Resolve(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Resolve(%s): %v", schema, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	const schema = `{"type":"object",
		"properties":{
			"count":{"type":"integer","minimum":1},
			"price":{"type":"number","exclusiveMinimum":0,"maximum":99.5,"multipleOf":0.25},
			"code":{"type":"string","minLength":3,"maxLength":4},
			"time":{"type":"string","pattern":"^[1-12]:[0-5]\\d (AM|PM)$"},
			"q":{"type":"object","properties":{"n":{"type":"string"}}},
			"tags":{"type":"array","items":{"type":"string"}},
			"ref":{"$ref":"#/$defs/id"},
			"id":{"type":"integer"},
			"opt":{"type":["integer","null"]},
			"kind":{"enum":["a","b"]}
		},
		"required":["count"],
		"$defs":{"id":{"type":"integer"}}}`
	v := mustResolve(t, schema)
	for _, tc := range []struct {
		args        string
		field       string
		detailHas   string
		detail      string // the whole detail, when set
		wantSuccess bool
		notObject   bool // the arguments are no JSON object: refused whatever the schema
	}{
		{args: `{"count":3}`, wantSuccess: true},
		{args: `{"count":3.0,"q":{"n":"x"},"tags":["a"],"ref":7}`, wantSuccess: true},
		{args: `{"count":"x"}`, field: "count", detail: `got string, want integer`},
		// What the MCP Inspector sends for --tool-arg id=abc.
		{args: `{"count":1,"id":null}`, field: "id", detail: `got null, want integer`},
		{args: `{"count":1,"id":1.5}`, field: "id", detail: `got number, want integer`},
		{args: `{"count":1,"opt":"x"}`, field: "opt", detail: `got string, want one of integer, null`},
		{args: `{"count":1,"kind":null}`, field: "kind", detailHas: `null does not equal any of`},
		{args: `{"count":0}`, field: "count", detail: "must be at least 1, got 0"},
		{args: `{"count":1,"price":0}`, field: "price", detail: "must be greater than 0, got 0"},
		{args: `{"count":1,"price":100}`, field: "price", detail: "must be at most 99.5, got 100"},
		{args: `{"count":1,"price":0.3}`, field: "price", detail: "must be a multiple of 0.25, got 0.3"},
		{args: `{"count":1,"code":"ab"}`, field: "code", detail: "must be at least 3 characters long, got 2"},
		{args: `{"count":1,"code":"abcde"}`, field: "code", detail: "must be at most 4 characters long, got 5"},
		{args: `{"count":1,"time":"8:00 PM"}`, field: "time", detail: `does not match the pattern "^[1-12]:[0-5]\\d (AM|PM)$"`},
		{args: `{"count":1,"time":"1:00 PM"}`, wantSuccess: true},
		{args: `{}`, detailHas: `missing properties: ["count"]`},
		{args: `{"count":1,"q":{"n":3}}`, field: "q.n", detail: `got integer, want string`},
		{args: `{"count":1,"tags":["a",2]}`, field: "tags[]", detail: `got integer, want string`},
		{args: `{"count":1,"ref":"s"}`, field: "ref", detail: `got string, want integer`},
		{args: `[1]`, detailHas: "must be a JSON object, not an array", notObject: true},
		{args: `"s"`, detailHas: "must be a JSON object, not a string", notObject: true},
		{args: `{`, detailHas: "not valid JSON", notObject: true},
	} {
		err := v.Validate(json.RawMessage(tc.args))
		if tc.wantSuccess {
			if err != nil {
				t.Errorf("Validate(%s) = %v, want success", tc.args, err)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("Validate(%s) = %v, want a *ValidationError", tc.args, err)
			continue
		}
		if ve.NotObject != tc.notObject {
			t.Errorf("Validate(%s): NotObject %v, want %v", tc.args, ve.NotObject, tc.notObject)
		}
		if ve.Field != tc.field || !strings.Contains(ve.Detail, tc.detailHas) {
			t.Errorf("Validate(%s) = field %q, detail %q; want field %q, detail containing %q", tc.args, ve.Field, ve.Detail, tc.field, tc.detailHas)
		}
		if tc.detail != "" && ve.Detail != tc.detail {
			t.Errorf("Validate(%s) says %q, want %q", tc.args, ve.Detail, tc.detail)
		}
		if strings.Contains(ve.Detail, "reflect") {
			t.Errorf("Validate(%s) speaks Go: %q", tc.args, ve.Detail)
		}
		if tc.field != "" && !strings.Contains(err.Error(), `"`+tc.field+`"`) {
			t.Errorf("Validate(%s): message %q does not name the field", tc.args, err)
		}
	}
}

func TestResolveFailures(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"http://example.com/a.json"}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
		`{"type":5}`,
	} {
		if _, err := Resolve(json.RawMessage(schema)); err == nil {
			t.Errorf("Resolve(%s) succeeded, want an error", schema)
		}
	}
	for _, schema := range []string{
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
	} {
		if _, err := Resolve(json.RawMessage(schema)); err != nil {
			t.Errorf("Resolve(%s): %v", schema, err)
		}
	}
}

func TestCacheResolvesOnce(t *testing.T) {
	var c Cache
	s := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)
	v1, fresh1, err := c.Get(s)
	if err != nil || !fresh1 {
		t.Fatalf("first Get: %v, fresh %v", err, fresh1)
	}
	v2, fresh2, err := c.Get(s)
	if err != nil || fresh2 || v2 != v1 {
		t.Fatalf("second Get: %v, fresh %v, same %v", err, fresh2, v1 == v2)
	}
	bad := json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"http://example.com/x"}}}`)
	if _, fresh, err := c.Get(bad); err == nil || !fresh {
		t.Fatalf("bad schema: %v, fresh %v", err, fresh)
	}
	if _, fresh, err := c.Get(bad); err == nil || fresh {
		t.Fatalf("bad schema again: %v, fresh %v (the failure should be cached)", err, fresh)
	}
}

func BenchmarkValidate(b *testing.B) {
	v, err := Resolve(json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"]}`))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"id":42,"name":"slice"}`)
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

// A schema library's own object (zod's internals as JSON, as a page hands
// it to registerTool by mistake) is refused with a reason that says what
// the page must do; a JSON Schema that merely has such words as property
// names is not.
func TestLibraryObjectsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"zod 3 object", `{"_def":{"unknownKeys":"strip","catchall":{"_def":{"typeName":"ZodNever"},"~standard":{"version":1,"vendor":"zod"}},"typeName":"ZodObject"},"~standard":{"version":1,"vendor":"zod"},"_cached":null}`,
			"it is not a JSON Schema but the internals of a zod schema object; the page must pass registerTool a JSON Schema (convert it with z.toJSONSchema() (zod 4) or zod-to-json-schema (zod 3))"},
		{"zod 3 before Standard Schema", `{"_def":{"typeName":"ZodObject","unknownKeys":"strip"},"_cached":null}`, "internals of a zod schema object;"},
		{"zod 4 object", `{"type":"object","_zod":{"def":{"type":"object","shape":{}},"traits":{},"bag":{}},"def":{"type":"object"},"~standard":{"vendor":"zod","version":1}}`, "internals of a zod schema object;"},
		{"a raw shape of zod strings", `{"q":{"_def":{"typeName":"ZodString","checks":[]},"~standard":{"vendor":"zod","version":1}}}`, "internals of a zod schema object at /q;"},
		{"valibot inside properties", `{"type":"object","properties":{"a/b":{"kind":"schema","type":"string","~standard":{"vendor":"valibot","version":1}}}}`,
			"internals of a valibot schema object at /properties/a~1b; the page must pass registerTool a JSON Schema (convert it to JSON Schema with the library)"},
	} {
		_, err := Resolve(json.RawMessage(tc.schema))
		var rej *RejectedError
		if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tc.want) {
			t.Errorf("%s: Resolve = %v, want a *RejectedError saying %q", tc.name, err, tc.want)
		}
	}
	for _, ok := range []string{
		`{"type":"object","properties":{"_def":{"type":"string"},"_zod":{"type":"object"},"~standard":{"type":"string"}}}`,
		`{"type":"object","properties":{"x":{"type":"object","properties":{"_def":{"type":"object","properties":{"typeName":{"type":"string"}}}}}}}`,
	} {
		if _, err := Resolve(json.RawMessage(ok)); err != nil {
			t.Errorf("Resolve(%s) = %v, want a JSON Schema resolved", ok, err)
		}
	}
}
