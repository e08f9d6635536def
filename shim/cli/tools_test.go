package cli

import (
	"encoding/json"
	"testing"
)

// The arguments in brief keep the schema's order, mark the required ones
// and flatten what the page wrote to one line.
func TestArgsLine(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"type":"object"}`, ""},
		{`{"type":"object","properties":{}}`, ""},
		{`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}`, "z: string, a*: integer"},
		{`{"properties":{"ids":{"type":"array","items":{"type":"integer"}},"any":{"type":"array"}}}`, "ids: integer[], any: array"},
		{`{"properties":{"n":{"type":["integer","null"]},"mode":{"enum":["a","b"]},"x":{}}}`, "n: integer|null, mode: enum, x: any"},
		{`{"properties":{"bad\u001b[31mname\nx":{"type":"string"}},"required":["bad\u001b[31mname\nx"]}`, "bad [31mname x*: string"},
		{`{"properties":[1]}`, "…"},
	} {
		if got := argsLine(json.RawMessage(c.schema)); got != c.want {
			t.Errorf("argsLine(%s) = %q, want %q", c.schema, got, c.want)
		}
	}
}
