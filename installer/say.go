package installer

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// columns is the width of what install and uninstall print.
const columns = 80

// say prints a message wrapped at [columns], its further lines indented by
// two spaces.
func say(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, wrap(fmt.Sprintf(format, args...), columns, "  "))
}

// wrap breaks each line of s at spaces so that it fits in width columns,
// indenting the lines it adds; a word longer than a line (a long path) gets
// a line of its own rather than being cut. Runs of spaces become one. The
// result ends with a newline.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		n := 0 // columns on the current output line
		for i, word := range strings.Fields(line) {
			w := utf8.RuneCountInString(word)
			switch {
			case i == 0:
			case n+1+w <= width:
				b.WriteByte(' ')
				n++
			default:
				b.WriteString("\n" + indent)
				n = utf8.RuneCountInString(indent)
			}
			b.WriteString(word)
			n += w
		}
		b.WriteByte('\n')
	}
	return b.String()
}
