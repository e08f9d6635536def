package main

// A check of a bundle's manifest.json against the MCPB manifest schema,
// version 0.3 (github.com/modelcontextprotocol/mcpb: MANIFEST.md and its
// schema): objects take only their own keys, required keys are there,
// values have their types, enums and URL forms. Written from the schema's
// text; the bundle's manifest must pass it, and the broken manifests
// below must not.

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// shape is one value of the schema.
type shape struct {
	kind     string            // "string", "url", "email", "bool", "number", "array", "object", "record", "any"
	enum     []string          // for strings: the values allowed
	pattern  *regexp.Regexp    // for strings: the form
	elem     *shape            // for arrays and records: each element
	fields   map[string]*shape // for objects: the keys allowed
	required []string          // for objects: the keys needed
	oneOf    []*shape          // any of these
}

func obj(required []string, fields map[string]*shape) *shape {
	return &shape{kind: "object", fields: fields, required: required}
}
func arrayOf(s *shape) *shape  { return &shape{kind: "array", elem: s} }
func recordOf(s *shape) *shape { return &shape{kind: "record", elem: s} }
func enum(v ...string) *shape  { return &shape{kind: "string", enum: v} }
func anyOf(s ...*shape) *shape { return &shape{oneOf: s} }

var (
	str     = &shape{kind: "string"}
	urlStr  = &shape{kind: "url"}
	email   = &shape{kind: "email"}
	boolean = &shape{kind: "bool"}
	number  = &shape{kind: "number"}
	anyVal  = &shape{kind: "any"}
)

// mcpbManifestSchema is MCPB's manifest, version 0.3.
var mcpbManifestSchema = func() *shape {
	serverConfig := map[string]*shape{"command": str, "args": arrayOf(str), "env": recordOf(str)}
	override := obj(nil, serverConfig) // the same keys, none required
	mcpConfig := obj([]string{"command"}, map[string]*shape{
		"command": str, "args": arrayOf(str), "env": recordOf(str), "platform_overrides": recordOf(override),
	})
	return obj([]string{"manifest_version", "name", "version", "description", "author", "server"}, map[string]*shape{
		"$schema":          str,
		"dxt_version":      enum(mcpbVersion),
		"manifest_version": enum(mcpbVersion),
		"name":             str,
		"display_name":     str,
		"version":          str,
		"description":      str,
		"long_description": str,
		"author":           obj([]string{"name"}, map[string]*shape{"name": str, "email": email, "url": urlStr}),
		"repository":       obj([]string{"type", "url"}, map[string]*shape{"type": str, "url": urlStr}),
		"homepage":         urlStr,
		"documentation":    urlStr,
		"support":          urlStr,
		"icon":             str,
		"icons": arrayOf(obj([]string{"src", "size"}, map[string]*shape{
			"src": str, "size": {kind: "string", pattern: regexp.MustCompile(`^\d+x\d+$`)}, "theme": str,
		})),
		"screenshots": arrayOf(str),
		"localization": obj([]string{"resources", "default_locale"}, map[string]*shape{
			"resources":      {kind: "string", pattern: regexp.MustCompile(`(?i)\$\{locale\}`)},
			"default_locale": {kind: "string", pattern: regexp.MustCompile(`^[A-Za-z0-9]{2,8}(?:-[A-Za-z0-9]{1,8})*$`)},
		}),
		"server": obj([]string{"type", "entry_point", "mcp_config"}, map[string]*shape{
			"type": enum("python", "node", "binary"), "entry_point": str, "mcp_config": mcpConfig,
		}),
		"tools":           arrayOf(obj([]string{"name"}, map[string]*shape{"name": str, "description": str})),
		"tools_generated": boolean,
		"prompts": arrayOf(obj([]string{"name", "text"}, map[string]*shape{
			"name": str, "description": str, "arguments": arrayOf(str), "text": str,
		})),
		"prompts_generated": boolean,
		"keywords":          arrayOf(str),
		"license":           str,
		"privacy_policies":  arrayOf(urlStr),
		"compatibility": obj(nil, map[string]*shape{
			"claude_desktop": str,
			"platforms":      arrayOf(enum("darwin", "win32", "linux")),
			"runtimes":       obj(nil, map[string]*shape{"python": str, "node": str}),
		}),
		"user_config": recordOf(obj([]string{"type", "title", "description"}, map[string]*shape{
			"type":        enum("string", "number", "boolean", "directory", "file"),
			"title":       str,
			"description": str,
			"required":    boolean,
			"default":     anyOf(str, number, boolean, arrayOf(str)),
			"multiple":    boolean,
			"sensitive":   boolean,
			"min":         number,
			"max":         number,
		})),
		"_meta": recordOf(recordOf(anyVal)),
	})
}()

// check returns what is wrong with v (decoded JSON) at path.
func (s *shape) check(v any, path string) []string {
	if s.oneOf != nil {
		for _, o := range s.oneOf {
			if len(o.check(v, path)) == 0 {
				return nil
			}
		}
		return []string{path + ": none of the types it may have"}
	}
	bad := func(format string, args ...any) []string { return []string{path + ": " + fmt.Sprintf(format, args...)} }
	switch s.kind {
	case "any":
		return nil
	case "string", "url", "email":
		str, ok := v.(string)
		if !ok {
			return bad("not a string")
		}
		switch {
		case s.enum != nil && !slices.Contains(s.enum, str):
			return bad("%q is not one of %q", str, s.enum)
		case s.pattern != nil && !s.pattern.MatchString(str):
			return bad("%q is not of the form %s", str, s.pattern)
		case s.kind == "url":
			if u, err := url.Parse(str); err != nil || u.Scheme == "" || u.Host == "" {
				return bad("%q is not a URL", str)
			}
		case s.kind == "email":
			if at := strings.Index(str, "@"); at < 1 || at == len(str)-1 {
				return bad("%q is not an email address", str)
			}
		}
	case "bool":
		if _, ok := v.(bool); !ok {
			return bad("not true or false")
		}
	case "number":
		if _, ok := v.(float64); !ok {
			return bad("not a number")
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return bad("not an array")
		}
		var out []string
		for i, e := range a {
			out = append(out, s.elem.check(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case "object", "record":
		o, ok := v.(map[string]any)
		if !ok {
			return bad("not an object")
		}
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range s.required {
			if _, ok := o[k]; !ok {
				out = append(out, path+": no "+k)
			}
		}
		for _, k := range keys {
			f := s.elem
			if s.kind == "object" {
				if f = s.fields[k]; f == nil {
					out = append(out, path+": unknown key "+k)
					continue
				}
			}
			out = append(out, f.check(o[k], path+"."+k)...)
		}
		return out
	}
	return nil
}

// The check catches what MCPB's schema refuses.
func TestMCPBManifestCheck(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{
			"manifest_version": mcpbVersion, "name": "x", "version": "1.0.0", "description": "d",
			"author": map[string]any{"name": "a"},
			"server": map[string]any{"type": "binary", "entry_point": "server/x", "mcp_config": map[string]any{
				"command": "${__dirname}/server/x", "args": []any{},
				"platform_overrides": map[string]any{"win32": map[string]any{"command": "${__dirname}/server/x.exe"}},
			}},
			"compatibility": map[string]any{"platforms": []any{"darwin", "win32"}},
		}
	}
	if p := mcpbManifestSchema.check(good(), "manifest"); p != nil {
		t.Fatalf("a good manifest: %q", p)
	}
	for _, tc := range []struct {
		break_ func(m map[string]any)
		want   string
	}{
		{func(m map[string]any) { delete(m, "author") }, "manifest: no author"},
		{func(m map[string]any) { m["author"] = map[string]any{"email": "a@b"} }, "manifest.author: no name"},
		{func(m map[string]any) { m["manifest_version"] = "9" }, `manifest.manifest_version: "9" is not one of`},
		{func(m map[string]any) { m["color"] = "red" }, "manifest: unknown key color"},
		{func(m map[string]any) { m["server"].(map[string]any)["type"] = "go" }, `manifest.server.type: "go" is not one of`},
		{func(m map[string]any) { delete(m["server"].(map[string]any)["mcp_config"].(map[string]any), "command") }, "manifest.server.mcp_config: no command"},
		{func(m map[string]any) {
			m["server"].(map[string]any)["mcp_config"].(map[string]any)["platform_overrides"].(map[string]any)["win32"] = map[string]any{"cmd": "x"}
		}, "manifest.server.mcp_config.platform_overrides.win32: unknown key cmd"},
		{func(m map[string]any) { m["compatibility"] = map[string]any{"platforms": []any{"macos"}} }, `manifest.compatibility.platforms[0]: "macos" is not one of`},
		{func(m map[string]any) { m["homepage"] = "example.com" }, `manifest.homepage: "example.com" is not a URL`},
		{func(m map[string]any) { m["tools_generated"] = "yes" }, "manifest.tools_generated: not true or false"},
		{func(m map[string]any) { m["server"].(map[string]any)["mcp_config"].(map[string]any)["args"] = []any{1} }, "manifest.server.mcp_config.args[0]: not a string"},
	} {
		m := good()
		tc.break_(m)
		p := mcpbManifestSchema.check(m, "manifest")
		if !slices.ContainsFunc(p, func(s string) bool { return strings.HasPrefix(s, tc.want) }) {
			t.Errorf("check = %q, want %q", p, tc.want)
		}
	}
}

// fatMachO takes Mach-O files only (TestRelease checks the universal
// binary it makes of two).
func TestFatMachOTakesMachOOnly(t *testing.T) {
	if _, err := fatMachO([]byte("not a binary")); err == nil {
		t.Error("fatMachO of a file that is not Mach-O: no error")
	}
}
