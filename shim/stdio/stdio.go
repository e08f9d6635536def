// Package stdio is the MCP stdio transport of webmcp-shim: one JSON-RPC
// message per line on the agent's pipes, like the SDK's StdioTransport, but
// a message over the size limit is answered and skipped instead of ending
// the session.
//
// The SDK's own stdio transport fails the whole connection on a line over
// its cap (16 MiB) and on a line that is not JSON, so one oversized tool
// argument would take the bridge away from the agent for every tab. Here a
// request over [DefaultMaxMessage] gets an answer that names the limit (a
// tool result with isError for tools/call, a JSON-RPC error otherwise), a
// line that is not JSON gets a parse error, and the next message is read as
// usual.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webmcp-bridge/bridge/internal/lines"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// DefaultMaxMessage bounds one message from the agent: room for 16 MiB of
// tool arguments (the most the bridge carries to a page) and the JSON-RPC
// envelope around them.
const DefaultMaxMessage = 16<<20 + 64<<10

// SniffBytes is how much of an oversized message's start and end is kept to
// find its id and method (see [Refusal]).
const SniffBytes = 4 << 10

// Transport is an [mcp.Transport] over a pair of pipes, by default the
// process's stdin and stdout.
type Transport struct {
	// In and Out are the agent's pipes; nil means os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// MaxMessage bounds one inbound message in bytes; 0 means
	// DefaultMaxMessage.
	MaxMessage int
	// Logger receives a line for each message it skips; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Connect starts reading In.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{
		in:    t.In,
		out:   t.Out,
		max:   t.MaxMessage,
		log:   t.Logger,
		msgs:  make(chan jsonrpc.Message),
		done:  make(chan struct{}),
		ended: make(chan struct{}),
	}
	if c.in == nil {
		c.in = os.Stdin
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.max <= 0 {
		c.max = DefaultMaxMessage
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.w = lines.NewWriter(c.out)
	go c.readLoop()
	return c, nil
}

// conn is one session on the pipes.
type conn struct {
	in  io.Reader
	out io.Writer
	max int
	log *slog.Logger

	w *lines.Writer // keeps each message whole, gathers those written at once

	msgs      chan jsonrpc.Message // decoded messages, to Read
	readErr   error                // why reading ended; set before ended is closed
	ended     chan struct{}        // closed when reading ended
	done      chan struct{}        // closed by Close
	closeOnce sync.Once
}

// Read returns the next message from the agent.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.ended:
		return nil, c.readErr
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends one message to the agent.
func (c *conn) Write(_ context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *conn) writeLine(b []byte) error {
	select {
	case <-c.done:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close ends the session; a pending Read returns.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		if cl, ok := c.in.(io.Closer); ok {
			cl.Close()
		}
	})
	return nil
}

// SessionID is empty: stdio has one session.
func (c *conn) SessionID() string { return "" }

// readLoop decodes the agent's lines until the input ends.
func (c *conn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, over, err := readMessage(r, c.max)
		if over != nil {
			c.refuse(over)
		} else if len(bytes.TrimSpace(line)) > 0 {
			if m, derr := decode(line); derr != nil {
				c.undecodable(line, derr)
			} else {
				select {
				case c.msgs <- m:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			close(c.ended)
			return
		}
	}
}

// oversized is what is kept of a message over the limit.
type oversized struct {
	size       int
	head, tail []byte
	limit      int
}

// readMessage returns the next line without its end. A line over max is
// read to its end and dropped: over then holds its size and its first and
// last bytes. A last line without a newline counts as a line; err is io.EOF
// after it.
func readMessage(r *bufio.Reader, max int) (line []byte, over *oversized, err error) {
	for {
		frag, ferr := r.ReadSlice('\n')
		data := frag
		if ferr == nil {
			data = frag[:len(frag)-1]
		}
		switch {
		case over != nil:
			over.size += len(data)
			over.tail = lastBytes(append(over.tail, data...), SniffBytes)
		case len(line)+len(data) > max:
			over = &oversized{size: len(line) + len(data), limit: max}
			all := append(line, data...)
			over.head = bytes.Clone(all[:min(len(all), SniffBytes)])
			over.tail = bytes.Clone(lastBytes(all, SniffBytes))
			line = nil
		default:
			line = append(line, data...)
		}
		switch {
		case ferr == nil:
			return line, over, nil
		case errors.Is(ferr, bufio.ErrBufferFull):
			continue
		default:
			return line, over, ferr
		}
	}
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// refuse answers a message that was over the limit, when it can tell its
// id (see Refusal). A notification, or a message whose id it cannot find,
// is only logged.
func (c *conn) refuse(o *oversized) {
	answer, method := Refusal(o.head, o.tail, o.size, o.limit)
	if answer == nil {
		c.log.Warn("skipped a message over the size limit; no id to answer", "bytes", o.size, "method", method, "limit", o.limit)
		return
	}
	c.log.Warn("refused a message over the size limit", "bytes", o.size, "method", method, "limit", o.limit)
	c.writeLine(answer)
}

// TooLarge says that a message of size bytes is over the limit, and what
// to do: the words of every transport of the shim.
func TooLarge(size, limit int) string {
	return fmt.Sprintf("the request is %s, over the bridge's limit of %s for one message from the agent; the page did not run it. Send less data, e.g. a reference the page can resolve, or split the work into several calls", results.Size(size), results.Size(limit))
}

// Refusal is the answer to a message of size bytes, over limit, whose
// first and last bytes (at most SniffBytes of each) are head and tail:
// for a tools/call a tool result with isError, marked too large and not
// run by the page, for another request a JSON-RPC error, both saying
// [TooLarge]. It is nil when the message has no id that can be found (a
// notification). method is the message's method, "" when not found.
func Refusal(head, tail []byte, size, limit int) (answer []byte, method string) {
	id, method := sniff(head, tail)
	if id == nil {
		return nil, method
	}
	text := TooLarge(size, limit)
	if method == "tools/call" {
		return toolError(id, text), method
	}
	return errorLine(id, -32600, text), method
}

// undecodable answers a line that the SDK cannot decode: not JSON, or JSON
// nested deeper than the SDK reads (it would end the session). A request
// whose id can be found gets an answer for that id (a tool result with
// isError for tools/call); anything else a parse error with a null id.
func (c *conn) undecodable(line []byte, err error) {
	id, method := sniff(line[:min(len(line), SniffBytes)], lastBytes(line, SniffBytes))
	c.log.Warn("skipped a message from the agent that cannot be decoded", "method", method, "err", err)
	text := fmt.Sprintf("the bridge cannot read this message (%v); the page did not run it. Send plain JSON arguments nested less deeply", err)
	if id != nil && method == "tools/call" {
		c.writeLine(toolError(id, text))
		return
	}
	c.writeLine(errorLine(id, -32700, "parse error: "+text))
}

// toolError is a tools/call answer: a result with isError and text, marked
// (as results.Failure marks it) as too large and not run by the page.
func toolError(id json.RawMessage, text string) []byte {
	res, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": text}},
		"isError": true,
		"_meta":   map[string]any{results.MetaCode: results.CodeTooLarge, results.MetaPageRan: string(results.NotRun)},
	})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}

// errorLine is a JSON-RPC error response; id nil is a null id.
func errorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(message)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, msg)
}

// tailID finds an id that is the last member of the top-level object.
var tailID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// sniff finds the id and method of a message from its first and last
// bytes: the members before the first one that does not fit in head, and an
// id that ends the message.
func sniff(head, tail []byte) (id json.RawMessage, method string) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				break
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				break
			}
			switch key {
			case "id":
				if isID(raw) {
					id = raw
				}
			case "method":
				json.Unmarshal(raw, &method)
			}
		}
	}
	if id == nil {
		if m := tailID.FindSubmatch(tail); m != nil && isID(m[1]) {
			id = json.RawMessage(m[1])
		}
	}
	return id, method
}

// isID reports whether raw is a JSON-RPC id: a number or a string.
func isID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}
