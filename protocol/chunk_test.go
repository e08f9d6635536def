package protocol_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/protocol"
)

// roundTrip cuts msg into chunks of at most max bytes, checks each chunk,
// joins them and returns the result.
func roundTrip(t *testing.T, id string, msg []byte, max int) []byte {
	t.Helper()
	chunks, err := protocol.Chunks(id, msg, max)
	if err != nil {
		t.Fatalf("Chunks(%d bytes, max %d): %v", len(msg), max, err)
	}
	var j protocol.Joiner
	for i, c := range chunks {
		if len(c) > max {
			t.Fatalf("chunk %d is %d bytes, over %d", i, len(c), max)
		}
		var m protocol.Message
		if err := json.Unmarshal(c, &m); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if m.Type != protocol.TypeChunk || m.ID != id || m.Seq != i || m.Last != (i == len(chunks)-1) {
			t.Fatalf("chunk %d: type %q id %q seq %d last %v", i, m.Type, m.ID, m.Seq, m.Last)
		}
		if !utf8.ValidString(m.Data) {
			t.Fatalf("chunk %d cuts a character", i)
		}
		whole, done, err := j.Add(&m)
		if err != nil {
			t.Fatalf("Add(chunk %d): %v", i, err)
		}
		if done != (i == len(chunks)-1) {
			t.Fatalf("Add(chunk %d of %d): done %v", i, len(chunks), done)
		}
		if done {
			return whole
		}
	}
	t.Fatalf("%d chunks, and none was the last", len(chunks))
	return nil
}

func TestChunksRoundTrip(t *testing.T) {
	call := func(text string) []byte {
		b, err := json.Marshal(&protocol.Message{Type: protocol.TypeCall, ID: "s1.1", Name: "t", Arguments: mustJSON(t, map[string]string{"text": text})})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	texts := map[string]string{
		"ascii":      strings.Repeat("abcdefghij", 5000),
		"multi-byte": strings.Repeat("é€𝄞日本語", 3000),
		"escaping":   strings.Repeat(`"\<>&`+"\t\n\x01\u2028", 3000),
		"mixed":      strings.Repeat(`a"é\𝄞`+"\x1f<", 3000),
	}
	for name, text := range texts {
		msg := call(text)
		for _, max := range []int{256, 300, 1000, 4096, 65536} {
			got := roundTrip(t, "c1", msg, max)
			if string(got) != string(msg) {
				t.Errorf("%s, max %d: the joined message differs from the original", name, max)
			}
		}
	}
	// A message that fits is one chunk.
	if got := roundTrip(t, "c2", []byte(`{"type":"cancel","id":"s1.1"}`), 4096); string(got) != `{"type":"cancel","id":"s1.1"}` {
		t.Errorf("small message: %q", got)
	}
}

func TestChunksAtHostFrame(t *testing.T) {
	text := strings.Repeat("é€𝄞 \"quoted\" \\ <tag>\x02", 100000) // ~3 MiB
	msg := mustJSON(t, map[string]string{"type": "call", "text": text})
	chunks, err := protocol.Chunks("c9", msg, protocol.MaxHostFrame)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3 {
		t.Errorf("%d-byte message in %d chunks", len(msg), len(chunks))
	}
	if got := roundTrip(t, "c9", msg, protocol.MaxHostFrame); string(got) != string(msg) {
		t.Error("the joined message differs from the original")
	}
}

func TestChunksLimits(t *testing.T) {
	if _, err := protocol.Chunks("c1", []byte(`{"type":"x"}`), 100); err == nil {
		t.Error("Chunks with a limit of 100 bytes succeeded")
	}
	if _, err := protocol.Chunks("c1", []byte("{\"a\":\"\xff\xfe\"}"), 4096); err == nil {
		t.Error("Chunks of text that is not UTF-8 succeeded (the pieces would not join to it)")
	}
}

func TestJoinerInterleavedAndOutOfOrder(t *testing.T) {
	a, _ := protocol.Chunks("a", mustJSON(t, strings.Repeat("a", 1000)), 300)
	b, _ := protocol.Chunks("b", mustJSON(t, strings.Repeat("b", 1000)), 300)
	if len(a) < 3 || len(b) < 3 {
		t.Fatalf("%d and %d chunks, want at least 3 each", len(a), len(b))
	}
	decode := func(c []byte) *protocol.Message {
		var m protocol.Message
		if err := json.Unmarshal(c, &m); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	// Two messages' chunks interleaved join to both.
	var j protocol.Joiner
	var joined []string
	for i := range max(len(a), len(b)) {
		for _, cs := range [][][]byte{a, b} {
			if i < len(cs) {
				whole, done, err := j.Add(decode(cs[i]))
				if err != nil {
					t.Fatal(err)
				}
				if done {
					joined = append(joined, string(whole))
				}
			}
		}
	}
	wantA, wantB := string(mustJSON(t, strings.Repeat("a", 1000))), string(mustJSON(t, strings.Repeat("b", 1000)))
	if len(joined) != 2 || !(joined[0] == wantA && joined[1] == wantB || joined[0] == wantB && joined[1] == wantA) {
		t.Errorf("joined %d messages, want the two that were cut: %.30q", len(joined), joined)
	}
	// A piece out of order drops the message, and says so.
	j = protocol.Joiner{}
	if _, _, err := j.Add(decode(a[0])); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Add(decode(a[2])); err == nil {
		t.Error("Add of piece 2 after piece 0 succeeded")
	}
	// The rest of that message cannot complete it.
	for _, c := range a[1:] {
		if whole, done, _ := j.Add(decode(c)); done {
			t.Errorf("a dropped message completed: %.40q", whole)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzChunks: any UTF-8 text comes back whole, in chunks within the limit.
func FuzzChunks(f *testing.F) {
	f.Add("hello", 256)
	f.Add(strings.Repeat(`"\`, 200), 260)
	f.Add(strings.Repeat("𝄞\u2028\x00", 100), 300)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if !utf8.ValidString(text) || text == "" {
			return
		}
		max = 200 + (max&0xffff)%5000
		if got := roundTrip(t, "f", []byte(text), max); string(got) != text {
			t.Fatalf("joined %q, want %q", got, text)
		}
	})
}
