package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Envelope is the part of a message that routing needs. Decoding into it
// skips the payload, so a router can pass the original bytes on unchanged.
type Envelope struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// PeekEnvelope decodes the type and id of a message, strictly: it reads
// them as every reader of the message does, so that a router that passes
// the original bytes on routes what the receiver acts on.
//
// The host checks a shim's call, request and cancel by the id it peeks and
// forwards the line unchanged; the extension reads m.type and m.id of the
// JSON.parse'd object, which are case-sensitive and take the last of
// duplicate keys, while encoding/json matches keys case-insensitively. So
// PeekEnvelope refuses what the two could read differently:
//
//   - a top level that is not one JSON object (null counts as one without
//     a type);
//   - a top-level key given twice, or one that differs from "type" or "id"
//     in case alone ("ID", "Type");
//   - a type that is not a non-empty string, an id that is not a string
//     (or null);
//   - a type or id whose escapes leave half of a UTF-16 surrogate pair,
//     which Go turns into U+FFFD and JavaScript keeps.
//
// The keys inside nested values are not looked at: no router reads them.
func PeekEnvelope(data []byte) (Envelope, error) {
	if err := valid(data); err != nil {
		return Envelope{}, err
	}
	e, _, err := peekValid(data)
	return e, err
}

// Peeked is one message of a batch as [PeekFrame] found it: its JSON text
// (part of the frame's) and its envelope, or why its envelope could not be
// read (as [PeekEnvelope] says it).
type Peeked struct {
	Body []byte   // the message's JSON text
	Env  Envelope // its envelope, when Err is nil
	Err  error    // why its envelope could not be read
}

// PeekFrame is [PeekEnvelope] for a frame that may be a batch: when the
// message is a batch, it also peeks each message that the batch carries,
// in order. It checks the frame's JSON once for the batch and all its
// messages. A batch whose "messages" is not a list is an error; one
// without them, or with null, carries none. A message of the batch whose
// envelope cannot be read has its Err, and the others are peeked still.
func PeekFrame(data []byte) (Envelope, []Peeked, error) {
	if err := valid(data); err != nil {
		return Envelope{}, nil, err
	}
	e, list, err := peekValid(data)
	if err != nil || e.Type != TypeBatch {
		return e, nil, err
	}
	if list < 0 || data[list] == 'n' {
		return e, nil, nil
	}
	if data[list] != '[' {
		return e, nil, errors.New(`malformed batch: "messages" is not a list`)
	}
	out := make([]Peeked, 0, 16)
	for p := skipSpace(data, list+1); data[p] != ']'; {
		end := valueEnd(data, p)
		one := Peeked{Body: data[p:end:end]}
		one.Env, _, one.Err = peekValid(one.Body)
		out = append(out, one)
		p = skipSpace(data, end)
		if data[p] == ',' {
			p = skipSpace(data, p+1)
		}
	}
	return e, out, nil
}

// valid is PeekEnvelope's error for data that is not JSON, or nil.
func valid(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v json.RawMessage
	err := json.Unmarshal(data, &v) // for the reason
	if err == nil {
		err = errors.New("invalid JSON")
	}
	return fmt.Errorf("malformed message: %w", err)
}

// peekValid is PeekEnvelope for data that json.Valid accepted. list is
// where the value of the top-level key "messages" starts (matched as
// encoding/json matches it: in any case, the last one), or -1.
func peekValid(data []byte) (e Envelope, list int, err error) {
	list = -1
	p := skipSpace(data, 0)
	if strings.HasPrefix(string(data[p:]), "null") {
		return e, list, errors.New(`malformed message: no "type"`)
	}
	if data[p] != '{' {
		return e, list, errors.New("malformed message: not a JSON object")
	}
	var keys [12][]byte
	seen := keys[:0] // the top-level keys so far, unescaped: messages have a few
	haveType := false
	p = skipSpace(data, p+1)
	for data[p] != '}' {
		end := stringEnd(data, p)
		key := data[p+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			k, ok := unquote(data[p:end])
			if !ok {
				return e, list, fmt.Errorf("malformed message: the key %s is not valid UTF-16 once unescaped", data[p:end])
			}
			key = []byte(k)
		}
		for _, k := range seen {
			if string(k) == string(key) {
				return e, list, fmt.Errorf("malformed message: the key %q is given twice", key)
			}
		}
		seen = append(seen, key)
		for _, name := range [...]string{"type", "id"} {
			if string(key) != name && strings.EqualFold(string(key), name) {
				return e, list, fmt.Errorf("malformed message: the key %q differs from %q in case alone", key, name)
			}
		}
		p = skipSpace(data, end)
		p = skipSpace(data, p+1) // the colon
		vend := valueEnd(data, p)
		ok := true
		if strings.EqualFold(string(key), "messages") {
			list = p
		}
		switch string(key) {
		case "type":
			if data[p] != '"' {
				return e, list, errors.New(`malformed message: "type" is not a string`)
			}
			if e.Type, ok = unquoteType(data[p:vend]); !ok {
				return e, list, errors.New(`malformed message: "type" is not valid UTF-16 once unescaped`)
			}
			haveType = true
		case "id":
			switch data[p] {
			case '"':
				if e.ID, ok = unquote(data[p:vend]); !ok {
					return e, list, errors.New(`malformed message: "id" is not valid UTF-16 once unescaped`)
				}
			case 'n': // null: no id
			default:
				return e, list, errors.New(`malformed message: "id" is not a string`)
			}
		}
		p = skipSpace(data, vend)
		if data[p] == ',' {
			p = skipSpace(data, p+1)
		}
	}
	if !haveType || e.Type == "" {
		return e, list, errors.New(`malformed message: no "type"`)
	}
	return e, list, nil
}

// The scanning helpers below take JSON that json.Valid accepted, and an
// index at the start of a token.

func skipSpace(data []byte, p int) int {
	for p < len(data) {
		switch data[p] {
		case ' ', '\t', '\n', '\r':
			p++
		default:
			return p
		}
	}
	return p
}

// stringEnd returns the index just past the string that starts at p.
func stringEnd(data []byte, p int) int {
	for p++; ; p++ {
		switch data[p] {
		case '\\':
			p++
		case '"':
			return p + 1
		}
	}
}

// valueEnd returns the index just past the value that starts at p.
func valueEnd(data []byte, p int) int {
	switch data[p] {
	case '"':
		return stringEnd(data, p)
	case '{', '[':
		depth := 0
		for ; ; p++ {
			switch data[p] {
			case '"':
				p = stringEnd(data, p) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return p + 1
				}
			}
		}
	default: // a number, true, false or null
		for p < len(data) && !strings.ContainsRune(" \t\n\r,}]", rune(data[p])) {
			p++
		}
		return p
	}
}

// unquote decodes a JSON string with its quotes, as JSON.parse does; ok is
// false where JavaScript's string would hold half of a surrogate pair,
// which no Go string can.
func unquote(q []byte) (s string, ok bool) {
	q = q[1 : len(q)-1]
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q), utf8.Valid(q)
	}
	var b strings.Builder
	for i := 0; i < len(q); {
		c := q[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(q[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			b.WriteRune(r)
			i += n
			continue
		}
		switch e := q[i+1]; e {
		case 'u':
			r := hex4(q[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 || i+6 > len(q) || q[i] != '\\' || q[i+1] != 'u' {
					return "", false
				}
				r = utf16.DecodeRune(r, hex4(q[i+2:i+6]))
				if r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			b.WriteRune(r)
		default:
			b.WriteByte(unescaped(e))
			i += 2
		}
	}
	return b.String(), true
}

// unquoteType is unquote for a message's type: a type of this package
// without escapes is its constant, which costs no allocation.
func unquoteType(q []byte) (string, bool) {
	switch string(q[1 : len(q)-1]) {
	case TypeCall:
		return TypeCall, true
	case TypeCancel:
		return TypeCancel, true
	case TypeRequest:
		return TypeRequest, true
	case TypeResult:
		return TypeResult, true
	case TypeError:
		return TypeError, true
	case TypeBatch:
		return TypeBatch, true
	case TypeChunk:
		return TypeChunk, true
	case TypeToolsAdded:
		return TypeToolsAdded, true
	case TypeToolsRemoved:
		return TypeToolsRemoved, true
	case TypeTabUpdated:
		return TypeTabUpdated, true
	case TypeContext:
		return TypeContext, true
	}
	return unquote(q)
}

// unescaped is the byte that the one-letter escape \\e stands for.
func unescaped(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return e // '"', '\\', '/'
}

func hex4(h []byte) rune {
	n, _ := strconv.ParseUint(string(h), 16, 16)
	return rune(n)
}
