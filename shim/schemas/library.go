package schemas

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A page that uses a schema library (zod, valibot, ArkType) sometimes hands
// registerTool the library's own schema object rather than the JSON Schema
// the library can make of it. What reaches the bridge is then that object's
// internals as JSON (functions dropped): {"_def":{"typeName":"ZodObject",…},
// "~standard":{"vendor":"zod",…}} for zod 3, {"_zod":{"def":…},…} for zod 4,
// or a "raw shape" of them ({"q": <zod string>}, as MCP SDKs take). Such an
// object is valid JSON and, by the letter, a JSON Schema that allows
// anything: it says nothing an agent or a validator can use, and strict MCP
// clients may refuse it. The bridge refuses it with a reason that says what
// the page must do, like a schema past its bounds.

// libraryObject reports where raw (a schema within the bounds) holds a
// schema library's object, and which library: "" when it holds none. It
// looks at every object of raw, so a library object inside a JSON Schema's
// properties is found too.
func libraryObject(raw json.RawMessage) (where, vendor string) {
	if !strings.Contains(string(raw), `"_def"`) && !strings.Contains(string(raw), `"_zod"`) && !strings.Contains(string(raw), `"~standard"`) {
		return "", ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", ""
	}
	// The schema is within MaxSchemaDepth and MaxSchemaNodes (CheckBounds
	// ran first): a walk with an explicit stack is cheap and safe.
	type item struct {
		v   any
		ptr string
	}
	stack := []item{{v, ""}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := it.v.(type) {
		case map[string]any:
			if vendor := libraryVendor(x); vendor != "" {
				if it.ptr == "" {
					return "/", vendor
				}
				return it.ptr, vendor
			}
			// In reverse order of the keys, so that the first in order is
			// looked at first: the answer does not depend on map order.
			keys := slices.Sorted(maps.Keys(x))
			for i := len(keys) - 1; i >= 0; i-- {
				k := keys[i]
				stack = append(stack, item{x[k], it.ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)})
			}
		case []any:
			for i := len(x) - 1; i >= 0; i-- {
				stack = append(stack, item{x[i], fmt.Sprintf("%s/%d", it.ptr, i)})
			}
		}
	}
	return "", ""
}

// libraryVendor names the library whose schema object obj is, or "".
func libraryVendor(obj map[string]any) string {
	if std, ok := obj["~standard"].(map[string]any); ok {
		// Standard Schema (zod 3.24+, zod 4, valibot, ArkType): its
		// vendor and version.
		v, _ := std["vendor"].(string)
		if _, ok := std["version"].(float64); ok && v != "" {
			return v
		}
	}
	if def, ok := obj["_def"].(map[string]any); ok {
		if _, ok := def["typeName"]; ok {
			return "zod"
		}
	}
	if z, ok := obj["_zod"].(map[string]any); ok {
		if _, ok := z["def"]; ok {
			return "zod"
		}
	}
	return ""
}

// libraryReason is the reason a library object at where is refused.
func libraryReason(where, vendor string) string {
	how := "convert it to JSON Schema with the library"
	if vendor == "zod" {
		how = "convert it with z.toJSONSchema() (zod 4) or zod-to-json-schema (zod 3)"
	}
	at := ""
	if where != "/" {
		at = fmt.Sprintf(" at %s", clipReason(where, maxReason))
	}
	return fmt.Sprintf("it is not a JSON Schema but the internals of a %s schema object%s; the page must pass registerTool a JSON Schema (%s)", clipReason(vendor, 40), at, how)
}
