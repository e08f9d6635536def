package register

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file reads as much TOML as merging one table into Codex's
// config.toml needs: where each statement (a table header or a key/value
// pair) starts and ends, with strings, multi-line strings, arrays and
// inline tables skipped correctly, so that a "[" inside a value is never
// taken for a header. It does not check everything TOML forbids.

// tomlKind is the kind of a top-level TOML statement.
type tomlKind int

const (
	tomlTable      tomlKind = iota // [a.b]
	tomlArrayTable                 // [[a.b]]
	tomlKeyValue                   // a.b = value
)

// tomlStmt is one top-level statement of a TOML document.
type tomlStmt struct {
	kind  tomlKind
	key   []string // the header's key, or the key/value's dotted key
	table []string // for a key/value: the table it is in
	value string   // for a key/value: the value's text
	start int      // offset of the statement's first character
	end   int      // offset just past its line's newline (or the end)
	line  int      // 1-based line of start
}

// tomlScanner walks a TOML document.
type tomlScanner struct {
	s string
	i int
}

func (sc *tomlScanner) errorf(format string, args ...any) error {
	line := 1 + strings.Count(sc.s[:min(sc.i, len(sc.s))], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (sc *tomlScanner) peek(prefix string) bool { return strings.HasPrefix(sc.s[sc.i:], prefix) }

// skipSpace skips spaces and tabs.
func (sc *tomlScanner) skipSpace() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// skipComment skips a comment up to (not past) the end of its line.
func (sc *tomlScanner) skipComment() {
	if sc.peek("#") {
		for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
			sc.i++
		}
	}
}

// skipBlank skips spaces, comments and newlines (inside arrays).
func (sc *tomlScanner) skipBlank() {
	for {
		sc.skipSpace()
		sc.skipComment()
		switch {
		case sc.peek("\n"):
			sc.i++
		case sc.peek("\r\n"):
			sc.i += 2
		default:
			return
		}
	}
}

// endOfLine expects only spaces and a comment before the line ends, and
// steps past the newline.
func (sc *tomlScanner) endOfLine() error {
	sc.skipSpace()
	sc.skipComment()
	switch {
	case sc.i == len(sc.s):
	case sc.peek("\n"):
		sc.i++
	case sc.peek("\r\n"):
		sc.i += 2
	default:
		return sc.errorf("unexpected %q after a statement", sc.s[sc.i:sc.i+1])
	}
	return nil
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a dotted key: bare or quoted parts, spaces around the dots.
func (sc *tomlScanner) key() ([]string, error) {
	var parts []string
	for {
		sc.skipSpace()
		switch {
		case sc.peek(`"`) && !sc.peek(`"""`):
			start := sc.i
			if err := sc.basicString(); err != nil {
				return nil, err
			}
			p, err := unquoteBasic(sc.s[start:sc.i])
			if err != nil {
				return nil, sc.errorf("key %s: %v", sc.s[start:sc.i], err)
			}
			parts = append(parts, p)
		case sc.peek("'") && !sc.peek("'''"):
			start := sc.i
			if err := sc.literalString(); err != nil {
				return nil, err
			}
			parts = append(parts, sc.s[start+1:sc.i-1])
		default:
			start := sc.i
			for sc.i < len(sc.s) && isBareKeyByte(sc.s[sc.i]) {
				sc.i++
			}
			if sc.i == start {
				return nil, sc.errorf("a key was expected")
			}
			parts = append(parts, sc.s[start:sc.i])
		}
		sc.skipSpace()
		if !sc.peek(".") {
			return parts, nil
		}
		sc.i++
	}
}

// basicString skips "...".
func (sc *tomlScanner) basicString() error {
	for sc.i++; sc.i < len(sc.s); sc.i++ {
		switch sc.s[sc.i] {
		case '\\':
			sc.i++
		case '"':
			sc.i++
			return nil
		case '\n':
			return sc.errorf("a string does not end on its line")
		}
	}
	return sc.errorf("a string does not end")
}

// literalString skips '...'.
func (sc *tomlScanner) literalString() error {
	for sc.i++; sc.i < len(sc.s); sc.i++ {
		switch sc.s[sc.i] {
		case '\'':
			sc.i++
			return nil
		case '\n':
			return sc.errorf("a string does not end on its line")
		}
	}
	return sc.errorf("a string does not end")
}

// multilineString skips a multi-line string, whose quote is delim.
func (sc *tomlScanner) multilineString(delim byte) error {
	close := strings.Repeat(string(delim), 3)
	for sc.i += 3; sc.i < len(sc.s); sc.i++ {
		if delim == '"' && sc.s[sc.i] == '\\' {
			sc.i++
			continue
		}
		if sc.peek(close) {
			sc.i += 3
			// Up to two more quotes belong to the string.
			for n := 0; n < 2 && sc.i < len(sc.s) && sc.s[sc.i] == delim; n++ {
				sc.i++
			}
			return nil
		}
	}
	return sc.errorf("a multi-line string does not end")
}

// value skips one value.
func (sc *tomlScanner) value() error {
	switch {
	case sc.peek(`"""`):
		return sc.multilineString('"')
	case sc.peek("'''"):
		return sc.multilineString('\'')
	case sc.peek(`"`):
		return sc.basicString()
	case sc.peek("'"):
		return sc.literalString()
	case sc.peek("["):
		return sc.list("]", "an array's values", sc.value)
	case sc.peek("{"):
		return sc.list("}", "an inline table's entries", func() error {
			if _, err := sc.key(); err != nil {
				return err
			}
			if !sc.peek("=") {
				return sc.errorf("= was expected after a key")
			}
			sc.i++
			sc.skipSpace()
			return sc.value()
		})
	}
	// A number, boolean or date: up to a space, comment, comma or bracket;
	// a date and a time may be separated by one space.
	start := sc.i
	for sc.i < len(sc.s) && !strings.ContainsRune(" \t\r\n#,]}", rune(sc.s[sc.i])) {
		sc.i++
	}
	if sc.i == start {
		return sc.errorf("a value was expected")
	}
	if sc.i-start == 10 && sc.s[start+4] == '-' && sc.i+1 < len(sc.s) && sc.s[sc.i] == ' ' && sc.s[sc.i+1] >= '0' && sc.s[sc.i+1] <= '9' {
		sc.i++
		for sc.i < len(sc.s) && !strings.ContainsRune(" \t\r\n#,]}", rune(sc.s[sc.i])) {
			sc.i++
		}
	}
	return nil
}

// scanTOML splits a TOML document into its top-level statements.
func scanTOML(s string) ([]tomlStmt, error) {
	sc := &tomlScanner{s: s}
	var out []tomlStmt
	var table []string
	for {
		sc.skipBlank()
		if sc.i == len(s) {
			return out, nil
		}
		st := tomlStmt{start: sc.i, line: 1 + strings.Count(s[:sc.i], "\n")}
		if sc.peek("[") {
			st.kind = tomlTable
			sc.i++
			if sc.peek("[") {
				st.kind = tomlArrayTable
				sc.i++
			}
			k, err := sc.key()
			if err != nil {
				return nil, err
			}
			closing := "]"
			if st.kind == tomlArrayTable {
				closing = "]]"
			}
			if !sc.peek(closing) {
				return nil, sc.errorf("a table header must end with %s", closing)
			}
			sc.i += len(closing)
			st.key, table = k, k
		} else {
			k, err := sc.key()
			if err != nil {
				return nil, err
			}
			if !sc.peek("=") {
				return nil, sc.errorf("= was expected after the key %s", strings.Join(k, "."))
			}
			sc.i++
			sc.skipSpace()
			vstart := sc.i
			if err := sc.value(); err != nil {
				return nil, err
			}
			st.kind, st.key, st.table, st.value = tomlKeyValue, k, table, s[vstart:sc.i]
		}
		if err := sc.endOfLine(); err != nil {
			return nil, err
		}
		st.end = sc.i
		out = append(out, st)
	}
}

// hasPrefix says whether key starts with prefix.
func hasPrefix(key, prefix []string) bool {
	return len(key) >= len(prefix) && slices.Equal(key[:len(prefix)], prefix)
}

// tomlMerge puts body (key/value lines) under the table header key in
// doc: it replaces the key/value pairs of that table, keeping its header
// line as written, or appends the table (snippet) when there is none. It
// reports whether the table already holds exactly want. Where the table is
// defined otherwise (dotted keys, an inline table, an array of tables) it
// refuses, since editing that safely needs a real TOML writer.
func tomlMerge(doc string, key []string, snippet, body string, want map[string]any) (out string, same bool, err error) {
	stmts, err := scanTOML(doc)
	if err != nil {
		return "", false, fmt.Errorf("not TOML that webmcp-shim can edit (%v)", err)
	}
	name := strings.Join(key, ".")
	header := -1
	for i, st := range stmts {
		switch st.kind {
		case tomlTable:
			if slices.Equal(st.key, key) {
				if header >= 0 {
					return "", false, fmt.Errorf("line %d: [%s] is there twice (line %d too), which is not valid TOML: keep one", st.line, name, stmts[header].line)
				}
				header = i
			}
		case tomlArrayTable:
			if hasPrefix(st.key, key) || hasPrefix(key, st.key) {
				return "", false, fmt.Errorf("line %d: [[%s]] is an array of tables, which webmcp-shim does not edit", st.line, strings.Join(st.key, "."))
			}
		case tomlKeyValue:
			full := append(slices.Clip(st.table), st.key...)
			switch {
			case hasPrefix(key, full):
				return "", false, fmt.Errorf("line %d: %s is set with an inline value (%s = …), which webmcp-shim does not edit: make it a [%s] table", st.line, strings.Join(full, "."), strings.Join(st.key, "."), name)
			case hasPrefix(full, key) && !hasPrefix(st.table, key):
				return "", false, fmt.Errorf("line %d: %s is set with a dotted key (%s = …), which webmcp-shim does not edit: move it into a [%s] table", st.line, strings.Join(full, "."), strings.Join(st.key, "."), name)
			}
		}
	}
	if header < 0 {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + snippet, false, nil
	}
	// The table's key/value pairs, up to the next header.
	from, to := stmts[header].end, stmts[header].end
	got := map[string]any{}
	same = true
	for _, st := range stmts[header+1:] {
		if st.kind != tomlKeyValue {
			break
		}
		to = st.end
		v, ok := tomlValue(st.value)
		k := strings.Join(st.key, ".")
		if _, dup := got[k]; dup || !ok || len(st.key) != 1 {
			same = false
		}
		got[k] = v
	}
	if same && sameValue(got, want) {
		return doc, true, nil
	}
	if strings.HasSuffix(doc[:from], "\r\n") {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	} else if !strings.HasSuffix(doc[:from], "\n") {
		body = "\n" + body
	}
	return doc[:from] + body + doc[to:], false, nil
}

// tomlValue decodes a string, a boolean, an array of those, or an empty
// inline table; ok is false for anything else.
func tomlValue(v string) (any, bool) {
	v = strings.TrimSpace(v)
	switch {
	case v == "true" || v == "false":
		return v == "true", true
	case strings.HasPrefix(v, `"""`) || strings.HasPrefix(v, "'''"):
		return nil, false
	case strings.HasPrefix(v, `"`):
		s, err := unquoteBasic(v)
		return s, err == nil
	case strings.HasPrefix(v, "'"):
		return strings.Trim(v, "'"), true
	case strings.HasPrefix(v, "{"):
		sc := &tomlScanner{s: v, i: 1}
		sc.skipBlank()
		return map[string]any{}, sc.peek("}")
	case strings.HasPrefix(v, "["):
		out := []any{}
		sc := &tomlScanner{s: v, i: 1}
		for {
			sc.skipBlank()
			if sc.peek("]") {
				return out, true
			}
			start := sc.i
			if sc.value() != nil {
				return nil, false
			}
			e, ok := tomlValue(v[start:sc.i])
			if !ok {
				return nil, false
			}
			out = append(out, e)
			sc.skipBlank()
			if sc.peek(",") {
				sc.i++
			}
		}
	}
	return nil, false
}

// unquoteBasic decodes a TOML basic string, quotes included.
func unquoteBasic(q string) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("not a string")
	}
	var b strings.Builder
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", fmt.Errorf("a \\ at the end")
		}
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(s[i])
		case 'u', 'U':
			n := 4
			if s[i] == 'U' {
				n = 8
			}
			if i+1+n > len(s) {
				return "", fmt.Errorf("a short \\%c escape", s[i])
			}
			r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", fmt.Errorf("a bad \\%c escape", s[i])
			}
			b.WriteRune(rune(r))
			i += n
		default:
			return "", fmt.Errorf("an unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

// list reads the items of an array or inline table, from after its opening
// bracket to its closing one (end): items separated by commas, what naming
// them in an error.
func (sc *tomlScanner) list(end, what string, item func() error) error {
	sc.i++
	for {
		sc.skipBlank()
		if sc.peek(end) {
			sc.i++
			return nil
		}
		if err := item(); err != nil {
			return err
		}
		sc.skipBlank()
		switch {
		case sc.peek(","):
			sc.i++
		case sc.peek(end):
		default:
			return sc.errorf("%s must be separated by commas", what)
		}
	}
}
