// Package lines reads and writes the framing of the bridge's socket link
// between webmcp-shim and webmcp-host (and of the shim's MCP stdio): each
// message is one line ended by '\n', of bounded length. Both ends read it
// with [Read]; the shim writes it with a [Writer], which sends the lines
// that its goroutines write at the same moment in one write.
//
// Production code.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// ErrTooLong matches (with errors.Is) Read's error for a line over its
// limit.
var ErrTooLong = errors.New("line too long")

// tooLong is Read's error for a line over max bytes.
type tooLong struct{ max int }

func (e tooLong) Error() string        { return fmt.Sprintf("a line longer than %d bytes", e.max) }
func (e tooLong) Is(target error) bool { return target == ErrTooLong }

// Read returns the next line of r without its '\n', in a slice of its own.
// A line of more than max bytes (not counting the '\n') is an error that
// matches [ErrTooLong] and says "a line longer than max bytes"; the stream
// cannot be resynchronised after it. A last line without '\n' counts as a
// line; after it Read returns io.EOF.
func Read(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		data := frag
		if err == nil {
			data = frag[:len(frag)-1]
		}
		if len(line)+len(data) > max {
			return nil, tooLong{max}
		}
		line = append(line, data...)
		switch {
		case err == nil:
			if line == nil {
				line = []byte{}
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}
