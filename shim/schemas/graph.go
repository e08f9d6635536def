package schemas

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The validator (jsonschema-go) follows $ref without any guard: a schema
// that reaches itself again through $ref, allOf, anyOf, … on the same value
// makes it recurse until the Go runtime dies. So the bridge keeps its own
// map of a resolved schema — which subschema applies to the same value
// ("in place") and which to a part of it — refuses any in-place cycle, and
// walks that map before each validation to bound the validator's work
// (budget.go).

// node is one subschema, with the subschemas the validator may enter from
// it.
type node struct {
	s    *jsonschema.Schema
	path string // its JSON Pointer from the root, "" for the root
	base *node  // the schema whose $id (or the root) is its base URI
	uri  *url.URL

	// In place: the same value is checked against these.
	inPlace []*node // $ref, $dynamicRef, allOf, then, else, dependentSchemas, dependencies: their error is returned
	tried   []*node // oneOf, not, if: their error is dropped
	anyOf   []*node // the validator keeps every branch's error

	// On parts of the value.
	props        map[string]*node
	patternProps []*node
	anyProp      []*node // additionalProperties, unevaluatedProperties
	propNames    *node
	positional   [][]*node // prefixItems, items (array form)
	anyItem      []*node   // items, additionalItems, unevaluatedItems
	contains     *node     // tried on every item, its errors dropped

	printLen int // a bound on the text its keywords print about the schema
	anchors  map[string]*node
}

// graph is the map of one resolved schema.
type graph struct {
	root   *node
	nodes  map[*jsonschema.Schema]*node
	paths  map[string]*node // by canonical JSON Pointer from the root
	uris   map[string]*node // by base URI without fragment
	draft7 bool
}

// child is one subschema of a schema, under keyword kw (and key, for maps
// and arrays).
type child struct {
	kw, key string
	s       *jsonschema.Schema
}

// children lists every subschema of s in a fixed order.
func children(s *jsonschema.Schema) []child {
	var out []child
	one := func(kw string, c *jsonschema.Schema) {
		if c != nil {
			out = append(out, child{kw: kw, s: c})
		}
	}
	list := func(kw string, cs []*jsonschema.Schema) {
		for i, c := range cs {
			if c != nil {
				out = append(out, child{kw, strconv.Itoa(i), c})
			}
		}
	}
	dict := func(kw string, m map[string]*jsonschema.Schema) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if m[k] != nil {
				out = append(out, child{kw, k, m[k]})
			}
		}
	}
	dict("$defs", s.Defs)
	dict("definitions", s.Definitions)
	dict("dependencies", s.DependencySchemas)
	list("prefixItems", s.PrefixItems)
	one("items", s.Items)
	list("items", s.ItemsArray)
	one("additionalItems", s.AdditionalItems)
	one("contains", s.Contains)
	one("unevaluatedItems", s.UnevaluatedItems)
	dict("properties", s.Properties)
	dict("patternProperties", s.PatternProperties)
	one("additionalProperties", s.AdditionalProperties)
	one("propertyNames", s.PropertyNames)
	one("unevaluatedProperties", s.UnevaluatedProperties)
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	list("oneOf", s.OneOf)
	one("not", s.Not)
	one("if", s.If)
	one("then", s.Then)
	one("else", s.Else)
	dict("dependentSchemas", s.DependentSchemas)
	one("contentSchema", s.ContentSchema)
	return out
}

func escapeSeg(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// buildGraph maps root, which jsonschema-go resolved already (so its $refs
// resolve, its anchors are unique and it is a tree). It refuses, as a
// *RejectedError, a schema with an in-place cycle, or a $ref it cannot
// follow the way jsonschema-go does.
func buildGraph(root *jsonschema.Schema) (*graph, error) {
	g := &graph{
		nodes:  map[*jsonschema.Schema]*node{},
		paths:  map[string]*node{},
		uris:   map[string]*node{},
		draft7: root.Schema == "http://json-schema.org/draft-07/schema#" || root.Schema == "https://json-schema.org/draft-07/schema#",
	}
	// Nodes, paths, bases and anchors, as jsonschema-go's resolveURIs.
	empty := &url.URL{}
	var add func(s *jsonschema.Schema, path string, base *node) error
	add = func(s *jsonschema.Schema, path string, base *node) error {
		n := &node{s: s, path: path, base: base}
		g.nodes[s] = n
		g.paths[path] = n
		if base == nil { // the root
			n.base, n.uri = n, empty
			g.uris[""] = n
			base = n
		}
		if s.ID != "" && !(g.draft7 && s.Ref != "") {
			id, err := url.Parse(s.ID)
			if err != nil {
				return rejectf("its $id %q is not a URI", s.ID)
			}
			if g.draft7 && id.Fragment != "" {
				setAnchor(base, strings.TrimPrefix(s.ID, "#"), n)
			} else {
				n.uri = base.uri.ResolveReference(id)
				g.uris[n.uri.String()] = n
				n.base = n
				base = n
			}
		}
		if !g.draft7 {
			setAnchor(base, s.Anchor, n)
			setAnchor(base, s.DynamicAnchor, n)
		}
		for _, c := range children(s) {
			p := path + "/" + c.kw
			if c.key != "" {
				p += "/" + escapeSeg(c.key)
			}
			if err := add(c.s, p, base); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(root, "", nil); err != nil {
		return nil, err
	}
	g.root = g.nodes[root]

	// Edges.
	for s, n := range g.nodes {
		if s.Ref != "" {
			t, err := g.follow(n, s.Ref)
			if err != nil {
				return nil, err
			}
			n.inPlace = append(n.inPlace, t)
		}
		if s.DynamicRef != "" {
			ts, err := g.followDynamic(n, s.DynamicRef)
			if err != nil {
				return nil, err
			}
			n.inPlace = append(n.inPlace, ts...)
		}
		n.printLen = 64 + len(s.ID) + len(s.Pattern) + 4*jsonLen(s.Enum) + 4*jsonLen(s.Const) + 4*jsonLen(s.Required) + 4*jsonLen(s.DependentRequired) + 4*jsonLen(s.DependencyStrings)
		for _, c := range children(s) {
			cn := g.nodes[c.s]
			switch c.kw {
			case "allOf", "then", "else", "dependentSchemas", "dependencies":
				n.inPlace = append(n.inPlace, cn)
			case "oneOf", "not", "if":
				n.tried = append(n.tried, cn)
			case "anyOf":
				n.anyOf = append(n.anyOf, cn)
			case "properties":
				if n.props == nil {
					n.props = map[string]*node{}
				}
				n.props[c.key] = cn
			case "patternProperties":
				n.patternProps = append(n.patternProps, cn)
			case "additionalProperties", "unevaluatedProperties":
				n.anyProp = append(n.anyProp, cn)
			case "propertyNames":
				n.propNames = cn
			case "prefixItems", "items":
				if c.key == "" {
					n.anyItem = append(n.anyItem, cn)
					break
				}
				if c.key == "0" {
					n.positional = append(n.positional, nil)
				}
				last := len(n.positional) - 1
				n.positional[last] = append(n.positional[last], cn)
			case "additionalItems", "unevaluatedItems":
				n.anyItem = append(n.anyItem, cn)
			case "contains":
				n.contains = cn
			}
			if c.kw == "anyOf" || c.kw == "oneOf" {
				n.printLen += 64 + len(c.s.ID) + len(c.s.Anchor) + len(c.s.DynamicAnchor)
			}
		}
	}
	if err := g.findCycle(); err != nil {
		return nil, err
	}
	return g, nil
}

func setAnchor(base *node, name string, n *node) {
	if name == "" {
		return
	}
	if base.anchors == nil {
		base.anchors = map[string]*node{}
	}
	base.anchors[name] = n
}

func jsonLen(v any) int {
	if v == nil {
		return 0
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// target finds the schema a reference from n names, as jsonschema-go's
// resolveRef does for local references; dynamic reports whether the
// fragment names a $dynamicAnchor.
func (g *graph) target(n *node, ref string) (t *node, frag string, err error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, "", rejectf("its $ref %q is not a URI", ref)
	}
	abs := n.base.uri.ResolveReference(u)
	frag = abs.Fragment
	abs.Fragment = ""
	doc := g.uris[abs.String()]
	if doc == nil {
		return nil, "", rejectf("the bridge cannot follow its $ref %q", ref)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		t := doc.anchors[frag]
		if t == nil {
			return nil, "", rejectf("the bridge cannot follow its $ref %q", ref)
		}
		return t, frag, nil
	}
	// A JSON Pointer from doc: canonicalise its segments.
	p := doc.path
	if frag != "" {
		for _, seg := range strings.Split(frag[1:], "/") {
			seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
			p += "/" + escapeSeg(seg)
		}
	}
	t = g.paths[p]
	if t == nil {
		return nil, "", rejectf("the bridge cannot follow its $ref %q", ref)
	}
	return t, "", nil
}

func (g *graph) follow(n *node, ref string) (*node, error) {
	t, _, err := g.target(n, ref)
	return t, err
}

// followDynamic returns the schemas a $dynamicRef may land on: when its
// fragment names a $dynamicAnchor, any schema with that dynamic anchor
// (the validator picks one by the path it took), else the lexical target.
func (g *graph) followDynamic(n *node, ref string) ([]*node, error) {
	t, frag, err := g.target(n, ref)
	if err != nil {
		return nil, err
	}
	if frag == "" || t.s.DynamicAnchor != frag {
		return []*node{t}, nil
	}
	var out []*node
	for _, m := range g.nodes {
		if m.s.DynamicAnchor == frag {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *node) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// findCycle refuses a schema in which a subschema applies to the same
// value again through in-place keywords alone: the validator would never
// stop. (Recursion through properties or items reads a part of the value
// at each turn, so the arguments bound it.)
func (g *graph) findCycle() error {
	const (
		white = iota
		grey
		black
	)
	color := map[*node]int{}
	type frame struct {
		n    *node
		next int
	}
	edges := func(n *node) []*node { return slices.Concat(n.inPlace, n.tried, n.anyOf) }
	// Iterative depth-first search, in a fixed order.
	order := make([]*node, 0, len(g.nodes))
	for _, n := range g.nodes {
		order = append(order, n)
	}
	slices.SortFunc(order, func(a, b *node) int { return strings.Compare(a.path, b.path) })
	for _, start := range order {
		if color[start] != white {
			continue
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			es := edges(top.n)
			if top.next == len(es) {
				color[top.n] = black
				stack = stack[:len(stack)-1]
				continue
			}
			m := es[top.next]
			top.next++
			switch color[m] {
			case grey:
				var loop []string
				for i := len(stack) - 1; i >= 0; i-- {
					loop = append(loop, pointer(stack[i].n))
					if stack[i].n == m {
						break
					}
				}
				slices.Reverse(loop)
				loop = append(loop, pointer(m))
				return rejectf("it refers to itself without reading any part of the arguments (%s), so checking arguments against it would never end", strings.Join(clipLoop(loop), " → "))
			case white:
				color[m] = grey
				stack = append(stack, frame{m, 0})
			}
		}
	}
	return nil
}

func pointer(n *node) string {
	return "#" + n.path
}

// clipLoop keeps a long cycle's description short.
func clipLoop(loop []string) []string {
	if len(loop) <= 6 {
		return loop
	}
	out := append(slices.Clip(loop[:3]), "…")
	return append(out, loop[len(loop)-2:]...)
}
