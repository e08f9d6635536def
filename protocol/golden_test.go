package protocol_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

// The golden protocol messages in testdata/protocol, shared with the
// extension's Node tests (extension/test/protocol.test.js, registry.test.js,
// calls.test.js).

// goldenFile is one file of testdata/protocol: the cases of one message type.
type goldenFile struct {
	Doc   string       `json:"doc"`
	Cases []goldenCase `json:"cases"`
}

// goldenCase is one message (or, for chunk, the frames of one message).
type goldenCase struct {
	Name     string            `json:"name"`
	Links    []string          `json:"links"`
	Message  json.RawMessage   `json:"message"`
	ID       string            `json:"id"`
	MaxFrame int               `json:"maxFrame"`
	Frames   []json.RawMessage `json:"frames"`
	Joined   json.RawMessage   `json:"joined"`
}

// goldenSequence is one file of testdata/protocol/sequences.
type goldenSequence struct {
	Doc   string `json:"doc"`
	Steps []struct {
		From    string          `json:"from"`
		To      string          `json:"to"`
		Message json.RawMessage `json:"message"`
		Dropped bool            `json:"dropped"`
	} `json:"steps"`
}

const goldenDir = "../testdata/protocol"

// readGolden reads the golden file of one message type.
func readGolden(t *testing.T, typ string) goldenFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, typ+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f goldenFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s.json: %v", typ, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s.json has no cases", typ)
	}
	return f
}

// compact returns b as compact JSON.
func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("golden JSON: %v", err)
	}
	return buf.String()
}

var allTypes = []string{
	protocol.TypeHello, protocol.TypeState, protocol.TypeTabUpdated, protocol.TypeTabRemoved,
	protocol.TypeToolsAdded, protocol.TypeToolsRemoved, protocol.TypeContext, protocol.TypePins,
	protocol.TypeCall, protocol.TypeCancel, protocol.TypeRequest, protocol.TypeResult,
	protocol.TypeError, protocol.TypeChunk, protocol.TypeClient, protocol.TypeSessions,
	protocol.TypeBatch,
}

var links = []string{"extension->host", "host->extension", "host->shim", "shim->host"}

// TestGoldenRoundTrip decodes every golden message into a Message and
// encodes it again: the bytes must be the golden's, in the same field order.
func TestGoldenRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, path := range files {
		typ := strings.TrimSuffix(filepath.Base(path), ".json")
		if !slices.Contains(allTypes, typ) {
			t.Errorf("%s: no message type %q", path, typ)
			continue
		}
		seen = append(seen, typ)
		for _, c := range readGolden(t, typ).Cases {
			if len(c.Links) == 0 {
				t.Errorf("%s %q: no links", typ, c.Name)
			}
			for _, l := range c.Links {
				if !slices.Contains(links, l) {
					t.Errorf("%s %q: unknown link %q", typ, c.Name, l)
				}
			}
			msgs := c.Frames
			if c.Message != nil {
				msgs = append(msgs, c.Message)
			}
			if len(msgs) == 0 {
				t.Errorf("%s %q: no message", typ, c.Name)
			}
			for _, raw := range msgs {
				want := compact(t, raw)
				var m protocol.Message
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Errorf("%s %q: decode: %v", typ, c.Name, err)
					continue
				}
				if m.Type != typ {
					t.Errorf("%s %q: type %q", typ, c.Name, m.Type)
				}
				env, err := protocol.PeekEnvelope(raw)
				if err != nil || env.Type != m.Type || env.ID != m.ID {
					t.Errorf("%s %q: PeekEnvelope = %+v, %v", typ, c.Name, env, err)
				}
				got, err := json.Marshal(&m)
				if err != nil {
					t.Errorf("%s %q: encode: %v", typ, c.Name, err)
					continue
				}
				if string(got) != want {
					t.Errorf("%s %q: re-encoded as\n%s\nwant\n%s", typ, c.Name, got, want)
				}
				// A value encodes like a pointer.
				if got, _ := json.Marshal(m); string(got) != want {
					t.Errorf("%s %q: a Message value encodes as %s", typ, c.Name, got)
				}
			}
		}
	}
	slices.Sort(seen)
	want := slices.Clone(allTypes)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("golden files for %v, want one for each of %v", seen, want)
	}
}

// TestGoldenErrorCodes checks that error.json has a case for every code,
// and only those.
func TestGoldenErrorCodes(t *testing.T) {
	codes := []string{
		protocol.CodeToolError, protocol.CodeNotFound, protocol.CodeTabClosed, protocol.CodeNavigated,
		protocol.CodeCancelled, protocol.CodeTimeout, protocol.CodeBadRequest, protocol.CodeNoBrowser, protocol.CodeBrowserGone,
		protocol.CodeNotAllowed, protocol.CodeDeclined, protocol.CodeTooLarge, protocol.CodeBlocked, protocol.CodeInternal,
	}
	var got []string
	for _, c := range readGolden(t, protocol.TypeError).Cases {
		var m protocol.Message
		if err := json.Unmarshal(c.Message, &m); err != nil || m.Error == nil {
			t.Fatalf("%q: %v", c.Name, err)
		}
		if c.Name != m.Error.Code {
			t.Errorf("case %q carries code %q", c.Name, m.Error.Code)
		}
		got = append(got, m.Error.Code)
	}
	if !slices.Equal(got, codes) {
		t.Errorf("error.json has codes %v, want %v", got, codes)
	}
}

// TestGoldenRequests checks that request.json covers every method.
func TestGoldenRequests(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range readGolden(t, protocol.TypeRequest).Cases {
		var m protocol.Message
		if err := json.Unmarshal(c.Message, &m); err != nil {
			t.Fatal(err)
		}
		seen[m.Method] = true
	}
	for _, method := range []string{protocol.MethodSampleContext, protocol.MethodPin, protocol.MethodUnpin, protocol.MethodOpenPage, protocol.MethodFocusTab, protocol.MethodCloseTab} {
		if !seen[method] {
			t.Errorf("request.json has no %s request", method)
		}
	}
}

// TestGoldenChunks cuts the joined message as the host does and joins the
// frames as a receiver does.
func TestGoldenChunks(t *testing.T) {
	for _, c := range readGolden(t, protocol.TypeChunk).Cases {
		joined := compact(t, c.Joined)
		frames, err := protocol.Chunks(c.ID, []byte(joined), c.MaxFrame)
		if err != nil {
			t.Fatalf("%q: %v", c.Name, err)
		}
		if len(frames) != len(c.Frames) {
			t.Errorf("%q: Chunks gave %d frames, the golden has %d", c.Name, len(frames), len(c.Frames))
		}
		for i := range min(len(frames), len(c.Frames)) {
			if want := compact(t, c.Frames[i]); string(frames[i]) != want {
				t.Errorf("%q: frame %d is\n%s\nwant\n%s", c.Name, i, frames[i], want)
			}
			if len(frames[i]) > c.MaxFrame {
				t.Errorf("%q: frame %d has %d bytes, over %d", c.Name, i, len(frames[i]), c.MaxFrame)
			}
		}
		var j protocol.Joiner
		for i, raw := range c.Frames {
			var m protocol.Message
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			whole, done, err := j.Add(&m)
			if err != nil || done != (i == len(c.Frames)-1) {
				t.Fatalf("%q: Add(frame %d) = done %v, %v", c.Name, i, done, err)
			}
			if done && string(whole) != joined {
				t.Errorf("%q: joined\n%s\nwant\n%s", c.Name, whole, joined)
			}
		}
	}
}

// TestGoldenApply applies the state and change messages to a State.
func TestGoldenApply(t *testing.T) {
	msg := func(typ string, i int) *protocol.Message {
		t.Helper()
		var m protocol.Message
		if err := json.Unmarshal(readGolden(t, typ).Cases[i].Message, &m); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	var s protocol.State
	full := msg(protocol.TypeState, 0)
	for _, m := range []*protocol.Message{full, msg(protocol.TypeCall, 0)} {
		if got := s.Apply(m); got != (m.Type == protocol.TypeState) {
			t.Errorf("Apply(%s) = %v", m.Type, got)
		}
	}
	snap, err := json.Marshal(s.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(full.State); string(snap) != string(want) {
		t.Errorf("the state of state.json is\n%s\nafter Apply, want\n%s", snap, want)
	}
	s.Apply(msg(protocol.TypePins, 1))
	if p := s.Snapshot().Pins; len(p) != 0 {
		t.Errorf("after the empty pins list: %d pins", len(p))
	}
	s.Apply(msg(protocol.TypeToolsRemoved, 0))
	if n := len(s.Snapshot().Tools); n != 0 {
		t.Errorf("after toolsRemoved: %d tools", n)
	}
	s.Apply(msg(protocol.TypeTabRemoved, 0))
	if got := s.Snapshot(); len(got.Tabs) != 1 || len(got.Contexts) != 0 {
		t.Errorf("after tabRemoved 7: %+v", got)
	}
}

// TestGoldenSequences checks that every step of a sequence is a message
// that round-trips (the messages to and from the page are the worker's
// frame messages, which share the shapes of call, cancel, result and error
// but carry no tab and frame).
func TestGoldenSequences(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "sequences", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sequences: %v", err)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var seq goldenSequence
		if err := json.Unmarshal(b, &seq); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		answers := 0
		for i, st := range seq.Steps {
			var m protocol.Message
			if err := json.Unmarshal(st.Message, &m); err != nil {
				t.Fatalf("%s step %d: %v", path, i, err)
			}
			if st.From == "page" || st.To == "page" {
				continue
			}
			if got, want := mustMarshal(t, &m), compact(t, st.Message); got != want {
				t.Errorf("%s step %d: re-encoded as %s, want %s", path, i, got, want)
			}
			if st.To == "host" && !st.Dropped && (m.Type == protocol.TypeResult || m.Type == protocol.TypeError) {
				answers++
			}
		}
		if answers != 1 {
			t.Errorf("%s: %d answers reach the host, want exactly one", path, answers)
		}
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGoldenBatch builds every batch of batch.json from its messages'
// bytes with AppendBatch (a trailing newline left out), and checks that
// each message inside is one the golden files know.
func TestGoldenBatch(t *testing.T) {
	for _, c := range readGolden(t, protocol.TypeBatch).Cases {
		var m protocol.Message
		if err := json.Unmarshal(c.Message, &m); err != nil {
			t.Fatalf("%q: %v", c.Name, err)
		}
		if len(m.Messages) < 2 {
			t.Errorf("%q: a batch of %d messages; a lone message goes without one", c.Name, len(m.Messages))
		}
		var parts [][]byte
		for _, one := range m.Messages {
			env, err := protocol.PeekEnvelope(one)
			if err != nil || !slices.Contains(allTypes, env.Type) || env.Type == protocol.TypeBatch || env.Type == protocol.TypeChunk {
				t.Errorf("%q: a message in it is %+v (%v)", c.Name, env, err)
			}
			parts = append(parts, []byte(compact(t, one)+"\n"))
		}
		got := protocol.AppendBatch(nil, parts)
		if want := compact(t, c.Message); string(got) != want {
			t.Errorf("%q: AppendBatch gives\n%s\nwant\n%s", c.Name, got, want)
		}
		if len(got) != protocol.BatchOverhead+len(parts)-1+len(parts[0])-1+len(parts[1])-1 {
			t.Errorf("%q: %d bytes, not BatchOverhead and the messages", c.Name, len(got))
		}
	}
}
