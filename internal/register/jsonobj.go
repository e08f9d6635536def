package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// object is a JSON object that keeps its keys in order and its values as
// they were written, so that merging one entry into a user's file changes
// nothing else in it.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject parses b, a JSON object; empty input is an empty object.
func parseObject(b []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return o, nil
}

// get returns the value of key, or nil.
func (o *object) get(key string) json.RawMessage { return o.vals[key] }

// set sets key to v, in place if it was there, else at the end.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// del removes key, if it is there.
func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// child returns the object under key (empty if there is none).
func (o *object) child(key string) (*object, error) {
	v := o.get(key)
	if v == nil || string(bytes.TrimSpace(v)) == "null" {
		return parseObject(nil)
	}
	c, err := parseObject(v)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	return c, nil
}

// marshal encodes o compactly.
func (o *object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// indent encodes o for a file: two-space indents and a final newline.
func (o *object) indent() []byte {
	var b bytes.Buffer
	json.Indent(&b, o.marshal(), "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// mustJSON encodes v, which cannot fail for the values of this package.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
