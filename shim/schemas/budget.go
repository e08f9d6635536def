package schemas

import (
	"fmt"
	"slices"
)

// value is a decoded argument with the most text the validator may print
// for it (fmt's %v and %q of a string, a map, a slice).
type value struct {
	size  int
	obj   []member // an object's members
	arr   []*value // an array's items
	isObj bool
	isArr bool
}

type member struct {
	key string
	v   *value
}

// sized builds the value tree of a decoded JSON value. The decoder bounds
// its nesting (10,000 levels).
func sized(v any) *value {
	switch x := v.(type) {
	case map[string]any:
		out := &value{isObj: true, size: 8}
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
		out := &value{isArr: true, size: 2}
		for _, e := range x {
			c := sized(e)
			out.arr = append(out.arr, c)
			out.size = sat(out.size + 1 + c.size)
		}
		return out
	case string:
		return &value{size: 4*len(x) + 2}
	}
	return &value{size: 32}
}

// satMax keeps the sums below from overflowing.
const satMax = 1 << 50

func sat(n int) int { return min(n, satMax) }

// budget walks a schema's graph over a value the way the validator will,
// taking every branch it might take, and counts its steps, its depth and
// the text of its errors against the MaxValidation bounds.
type budget struct {
	steps, errBytes int
}

// check reports a *LimitError if validating v against g may pass a bound.
func (b *budget) check(g *graph, v *value) error {
	_, err := b.visit(g.root, v, 1)
	return err
}

// visit returns a bound on the length of the error message that validating
// v against n may return. Each level of the validator rewraps the message
// of the level below ("validating <path>: …"), so each visit costs the
// text of its own message.
func (b *budget) visit(n *node, v *value, depth int) (int, error) {
	if depth > MaxValidationDepth {
		return 0, &LimitError{"MaxValidationDepth", fmt.Sprintf("checking them would nest more than %d levels deep", MaxValidationDepth)}
	}
	b.steps++
	if b.steps > MaxValidationSteps {
		return 0, &LimitError{"MaxValidationSteps", fmt.Sprintf("checking them would take more than %d steps", MaxValidationSteps)}
	}
	local := sat(v.size + n.printLen)
	worst := local
	for _, c := range n.inPlace {
		e, err := b.visit(c, v, depth+1)
		if err != nil {
			return 0, err
		}
		worst = max(worst, e)
	}
	if len(n.anyOf) > 0 {
		sum := local
		for _, c := range n.anyOf {
			e, err := b.visit(c, v, depth+1)
			if err != nil {
				return 0, err
			}
			sum = sat(sum + e)
		}
		worst = max(worst, sum)
	}
	part := func(c *node, pv *value) error {
		e, err := b.visit(c, pv, depth+1)
		worst = max(worst, e)
		return err
	}
	if v.isObj {
		for _, m := range v.obj {
			if c := n.props[m.key]; c != nil {
				if err := part(c, m.v); err != nil {
					return 0, err
				}
			}
			for _, c := range n.patternProps { // as if every pattern matched
				if err := part(c, m.v); err != nil {
					return 0, err
				}
			}
			for _, c := range n.anyProp {
				if err := part(c, m.v); err != nil {
					return 0, err
				}
			}
			if n.propNames != nil {
				if err := part(n.propNames, &value{size: 4*len(m.key) + 2}); err != nil {
					return 0, err
				}
			}
		}
	}
	if v.isArr {
		for i, item := range v.arr {
			for _, list := range n.positional {
				if i < len(list) {
					if err := part(list[i], item); err != nil {
						return 0, err
					}
				}
			}
			for _, c := range n.anyItem {
				if err := part(c, item); err != nil {
					return 0, err
				}
			}
		}
	}
	msg := sat(worst + 16 + len(n.path) + len(n.s.ID))
	b.errBytes = sat(b.errBytes + msg)
	if b.errBytes > MaxValidationErrorBytes {
		return 0, &LimitError{"MaxValidationErrorBytes", fmt.Sprintf("the validator's messages about them could reach more than %d bytes", MaxValidationErrorBytes)}
	}
	return msg, nil
}
