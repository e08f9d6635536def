package schemas

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestForOutput(t *testing.T) {
	for _, tc := range []struct {
		raw, problem string
		ok           bool
	}{
		{``, "", false},
		{`null`, "", false},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, "", true},
		{`{"type":"array"}`, `does not have "type":"object"`, false},
		{`{"properties":{}}`, `does not have "type":"object"`, false},
		{`[1]`, "not a JSON object", false},
		{`{"type":"object","x-webmcp-rejected":"too deep"}`, "the browser extension refused it: too deep", false},
		{`{"type":"object","a":` + strings.Repeat(`[`, MaxSchemaDepth+1) + strings.Repeat(`]`, MaxSchemaDepth+1) + `}`, "nested more than", false},
	} {
		got, problem := ForOutput(json.RawMessage(tc.raw))
		if (got != nil) != tc.ok || (tc.problem == "") != (problem == "") || !strings.Contains(problem, tc.problem) {
			t.Errorf("ForOutput(%.60s) = %s, %q; want ok %v, problem %q", tc.raw, got, problem, tc.ok, tc.problem)
		}
	}
}

func TestValidateOutput(t *testing.T) {
	v, err := Resolve(json.RawMessage(`{"type":"object","properties":{"stats":{"type":"object","properties":{"count":{"type":"integer"}}}},"required":["stats"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateOutput(json.RawMessage(`{"stats":{"count":3}}`)); err != nil {
		t.Errorf("a matching result: %v", err)
	}
	var ve *ValidationError
	if err := v.ValidateOutput(json.RawMessage(`{"stats":{"count":"three"}}`)); !errors.As(err, &ve) || ve.Field != "stats.count" {
		t.Errorf("a wrong field: %v, want a ValidationError on stats.count", err)
	}
	if err := v.ValidateOutput(json.RawMessage(`[1]`)); !errors.As(err, &ve) || !strings.Contains(err.Error(), "must be a JSON object, not an array") {
		t.Errorf("an array: %v", err)
	}
	// The bounds of checking arguments hold for results too: each level
	// checks the next twice, 2^40 visits for 40 levels.
	branchy, err := Resolve(json.RawMessage(`{"type":"object","$defs":{"n":{"allOf":[{"properties":{"x":{"$ref":"#/$defs/n"}}},{"properties":{"x":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"x":`, 40) + "{}" + strings.Repeat("}", 40)
	if err := branchy.ValidateOutput(json.RawMessage(deep)); !errors.As(err, &ve) || !strings.Contains(err.Error(), "too large or too deeply nested to check against the tool's outputSchema") ||
		!strings.Contains(err.Error(), "MaxValidationSteps") {
		t.Errorf("a result past the validation bounds: %v", err)
	}
}
