package protocol

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Chunks cuts the JSON text msg into chunk messages, each of which encodes
// to at most max bytes. id names the chunked message; the receiver joins the
// pieces as the package documentation describes. max must leave room for a
// chunk's own fields (a few hundred bytes at least). msg must be UTF-8, as
// JSON text is: pieces travel as JSON strings, which cannot carry other
// bytes.
func Chunks(id string, msg []byte, max int) ([][]byte, error) {
	const overhead = 128 // {"type":"chunk","id":…,"seq":…,"last":…,"data":""}
	if max < overhead+len(id)+64 {
		return nil, fmt.Errorf("chunk limit %d is too small", max)
	}
	if !utf8.Valid(msg) {
		return nil, fmt.Errorf("cannot cut a message that is not UTF-8 into chunks")
	}
	var out [][]byte
	budget := max - overhead - len(id)
	for seq := 0; len(msg) > 0; seq++ {
		// JSON escaping can make a piece up to six times longer; start
		// with what fits unescaped and shrink until the encoding fits.
		n := min(budget, len(msg))
		for {
			for n < len(msg) && n > 0 && !utf8.RuneStart(msg[n]) {
				n--
			}
			if n == 0 {
				// An empty piece would never end the loop.
				return nil, fmt.Errorf("cannot fit a chunk into %d bytes", max)
			}
			b, err := json.Marshal(chunkWire{TypeChunk, id, seq, n == len(msg), string(msg[:n])})
			if err != nil {
				return nil, err
			}
			if len(b) <= max {
				out = append(out, b)
				msg = msg[n:]
				break
			}
			n = n * max / len(b) * 9 / 10
			if n == 0 {
				return nil, fmt.Errorf("cannot fit a chunk into %d bytes", max)
			}
		}
	}
	return out, nil
}

// Joiner reassembles chunked messages. The zero value is ready to use; it is
// not safe for concurrent use.
type Joiner struct {
	// Max, when positive, bounds one joined message: a message that grows
	// past Max bytes is dropped, with an error (its later pieces are then
	// out of order: dropped with an error each).
	Max int

	parts map[string][]byte
	next  map[string]int
}

// Add takes one chunk message. When it was the last piece, Add returns the
// whole message's JSON text.
func (j *Joiner) Add(m *Message) (msg []byte, done bool, err error) {
	if j.parts == nil {
		j.parts = map[string][]byte{}
		j.next = map[string]int{}
	}
	if want := j.next[m.ID]; m.Seq != want {
		delete(j.parts, m.ID)
		delete(j.next, m.ID)
		return nil, false, fmt.Errorf("chunk %q: got piece %d, want %d; the message is dropped", m.ID, m.Seq, want)
	}
	if j.Max > 0 && len(j.parts[m.ID])+len(m.Data) > j.Max {
		delete(j.parts, m.ID)
		delete(j.next, m.ID)
		return nil, false, fmt.Errorf("chunk %q: the message grows past %d bytes; it is dropped", m.ID, j.Max)
	}
	j.parts[m.ID] = append(j.parts[m.ID], m.Data...)
	j.next[m.ID]++
	if !m.Last {
		return nil, false, nil
	}
	msg = j.parts[m.ID]
	delete(j.parts, m.ID)
	delete(j.next, m.ID)
	return msg, true, nil
}
