package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ForOutput returns the outputSchema to advertise for a page's outputSchema
// raw (WebMCP's outputSchema proposal), or nil and why it is left out. MCP
// carries a tool's structured result as an object (structuredContent), so
// only a schema of "type":"object" is advertised; the same bounds as an
// inputSchema apply (CheckBounds). A missing or null schema gives nil and
// no problem.
func ForOutput(raw json.RawMessage) (schema json.RawMessage, problem string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	if err := CheckBounds(raw); err != nil {
		return nil, err.Error()
	}
	if reason := rejectedMark(raw); reason != "" {
		return nil, "the browser extension refused it: " + reason
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, "the page's outputSchema is not a JSON object"
	}
	var typ string
	if t, ok := obj["type"]; !ok || json.Unmarshal(t, &typ) != nil || typ != "object" {
		return nil, "the page's outputSchema does not have \"type\":\"object\"; MCP's structured results are objects"
	}
	return raw, ""
}

// ValidateOutput checks out, a tool's structured result, against the
// schema: a *ValidationError says which field is wrong (Field, the path in
// the result) and how; a result that checking would take past one of the
// MaxValidation bounds (the same bounds as for arguments) is refused with a
// *ValidationError that says so.
func (v *Validator) ValidateOutput(out json.RawMessage) error {
	var inst any
	if err := json.Unmarshal(out, &inst); err != nil {
		return &ValidationError{Detail: fmt.Sprintf("the result is not valid JSON: %v", err)}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &ValidationError{Detail: fmt.Sprintf("the result must be a JSON object, not %s", kind(inst))}
	}
	var b budget
	if err := b.check(v.graph, sized(inst)); err != nil {
		var lim *LimitError
		if errors.As(err, &lim) {
			return &ValidationError{Detail: fmt.Sprintf("the result is too large or too deeply nested to check against the tool's outputSchema: %s (%s)", lim.Detail, lim.Limit)}
		}
		return err
	}
	if err := v.resolved.Validate(inst); err != nil {
		return describe(err)
	}
	return nil
}
