package schemas

import (
	"fmt"
	"math"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// value is a decoded argument with the most text the validator may print
// for it.
type value struct {
	kind   string // its JSON type as the validator names it ("integer" for whole numbers)
	size   int    // fmt's %v of it
	quoted int    // fmt's %q of it, for a string
	obj    []member
	arr    []*value
}

type member struct {
	key string
	v   *value
}

// sized builds the value tree of a decoded JSON value. The decoder bounds
// its nesting (10,000 levels; the MCP SDK's reader, 1,000).
func sized(v any) *value {
	switch x := v.(type) {
	case map[string]any:
		out := &value{kind: "object", size: 8}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			c := sized(x[k])
			out.obj = append(out.obj, member{k, c})
			out.size = sat(out.size + 4*len(k) + 4 + c.size)
		}
		return out
	case []any:
		out := &value{kind: "array", size: 2}
		for _, e := range x {
			c := sized(e)
			out.arr = append(out.arr, c)
			out.size = sat(out.size + 1 + c.size)
		}
		return out
	case string:
		return &value{kind: "string", size: len(x) + 2, quoted: 4*len(x) + 2}
	case float64:
		if x == math.Trunc(x) {
			return &value{kind: "integer", size: 32}
		}
		return &value{kind: "number", size: 32}
	case bool:
		return &value{kind: "boolean", size: 8}
	}
	return &value{kind: "null", size: 8}
}

// printed bounds what the keywords of s print about v when v fails them:
// the value itself for type, enum and const, quoted for the string
// keywords, its property names for additionalProperties.
func printed(s *jsonschema.Schema, v *value) int {
	p := 0
	if (s.Type != "" || len(s.Types) > 0) && !fits(s, v.kind) {
		p = v.size
	}
	if s.Enum != nil || s.Const != nil || (v.kind == "object" && s.AdditionalProperties != nil) {
		p = max(p, v.size)
	}
	if v.kind == "string" && (s.MinLength != nil || s.MaxLength != nil || s.Pattern != "") {
		p = max(p, v.quoted)
	}
	return p
}

// fits reports whether a value of kind has the type s asks for.
func fits(s *jsonschema.Schema, kind string) bool {
	ok := func(t string) bool { return t == kind || (t == "number" && kind == "integer") }
	if s.Type != "" {
		return ok(s.Type)
	}
	return slices.ContainsFunc(s.Types, ok)
}

// satMax keeps the sums below from overflowing.
const satMax = 1 << 50

func sat(n int) int { return min(n, satMax) }

// budget walks a schema's graph over a value the way the validator will,
// taking every branch it might take, and counts its steps, its depth and
// the text of its errors against the MaxValidation bounds.
//
// The text: each level of the validator rewraps the error of the level
// below ("validating <path>: …"), so a failure costs the sum of its
// message's lengths along its chain of levels; the validator stops at the
// first failure it returns, but it also builds, and drops, the errors of
// the branches it only tries (oneOf, not, if, contains, and anyOf's failed
// branches). dropped sums the latter over the whole walk.
type budget struct {
	steps, dropped int
}

// check reports a *LimitError if validating v against g may pass a bound.
func (b *budget) check(g *graph, v *value) error {
	_, chain, err := b.visit(g.root, v, 1)
	if err != nil {
		return err
	}
	if sat(b.dropped+chain) > MaxValidationErrorBytes {
		return b.tooMuchText()
	}
	return nil
}

func (b *budget) tooMuchText() error {
	return &LimitError{"MaxValidationErrorBytes", fmt.Sprintf("the validator's messages about them could reach more than %d bytes", MaxValidationErrorBytes)}
}

// visit returns bounds on the error that validating v against n may
// return: msg, its length, and chain, the text built along its levels.
func (b *budget) visit(n *node, v *value, depth int) (msg, chain int, err error) {
	if depth > MaxValidationDepth {
		return 0, 0, &LimitError{"MaxValidationDepth", fmt.Sprintf("checking them would nest more than %d levels deep", MaxValidationDepth)}
	}
	b.steps++
	if b.steps > MaxValidationSteps {
		return 0, 0, &LimitError{"MaxValidationSteps", fmt.Sprintf("checking them would take more than %d steps", MaxValidationSteps)}
	}
	local := sat(printed(n.s, v) + n.printLen)
	worstMsg, worstChain := local, 0
	// returned: a child whose error becomes this one's.
	returned := func(c *node, pv *value) error {
		m, ch, err := b.visit(c, pv, depth+1)
		worstMsg, worstChain = max(worstMsg, m), max(worstChain, ch)
		return err
	}
	// tried: a child whose error is built and dropped.
	tried := func(c *node, pv *value) error {
		_, ch, err := b.visit(c, pv, depth+1)
		if err != nil {
			return err
		}
		b.dropped = sat(b.dropped + ch)
		if b.dropped > MaxValidationErrorBytes {
			return b.tooMuchText()
		}
		return nil
	}
	for _, c := range n.inPlace {
		if err := returned(c, v); err != nil {
			return 0, 0, err
		}
	}
	for _, c := range n.tried {
		if err := tried(c, v); err != nil {
			return 0, 0, err
		}
	}
	if len(n.anyOf) > 0 {
		sumMsg, sumChain := local, 0
		for _, c := range n.anyOf {
			m, ch, err := b.visit(c, v, depth+1)
			if err != nil {
				return 0, 0, err
			}
			sumMsg, sumChain = sat(sumMsg+m), sat(sumChain+ch)
		}
		worstMsg, worstChain = max(worstMsg, sumMsg), max(worstChain, sumChain)
	}
	if v.kind == "object" {
		for _, m := range v.obj {
			if c := n.props[m.key]; c != nil {
				if err := returned(c, m.v); err != nil {
					return 0, 0, err
				}
			}
			for _, c := range n.patternProps { // as if every pattern matched
				if err := returned(c, m.v); err != nil {
					return 0, 0, err
				}
			}
			for _, c := range n.anyProp {
				if err := returned(c, m.v); err != nil {
					return 0, 0, err
				}
			}
			if n.propNames != nil {
				if err := returned(n.propNames, &value{kind: "string", size: len(m.key) + 2, quoted: 4*len(m.key) + 2}); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	if v.kind == "array" {
		for i, item := range v.arr {
			for _, list := range n.positional {
				if i < len(list) {
					if err := returned(list[i], item); err != nil {
						return 0, 0, err
					}
				}
			}
			for _, c := range n.anyItem {
				if err := returned(c, item); err != nil {
					return 0, 0, err
				}
			}
			if n.contains != nil {
				if err := tried(n.contains, item); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	msg = sat(worstMsg + 16 + len(n.path) + len(n.s.ID))
	chain = sat(msg + worstChain)
	if chain > MaxValidationErrorBytes {
		return 0, 0, b.tooMuchText()
	}
	return msg, chain, nil
}
