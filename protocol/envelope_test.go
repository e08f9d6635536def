package protocol_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/protocol"
)

// envelopeCase is one case of testdata/envelopes.json.
type envelopeCase struct {
	Name    string `json:"name"`
	Line    string `json:"line"`
	Type    string `json:"type"`
	ID      string `json:"id"`
	Refused string `json:"refused"`
}

func envelopeCases(t testing.TB) []envelopeCase {
	b, err := os.ReadFile("../testdata/envelopes.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []envelopeCase }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// TestPeekEnvelopeGolden: each line of testdata/envelopes.json is peeked
// as the file says (node --test extension/test/ checks that JavaScript
// reads the same type and id from the lines it takes).
func TestPeekEnvelopeGolden(t *testing.T) {
	for _, c := range envelopeCases(t) {
		env, err := protocol.PeekEnvelope([]byte(c.Line))
		switch {
		case c.Refused != "":
			if err == nil || !strings.Contains(err.Error(), c.Refused) {
				t.Errorf("%s: PeekEnvelope(%s) = %+v, %v; want an error with %q", c.Name, c.Line, env, err, c.Refused)
			}
		case err != nil || env.Type != c.Type || env.ID != c.ID:
			t.Errorf("%s: PeekEnvelope(%s) = %+v, %v; want type %q, id %q", c.Name, c.Line, env, err, c.Type, c.ID)
		}
	}
}

// jsReading is what the extension reads from a line (testdata/envelope.mjs).
type jsReading struct {
	Parsed    bool    `json:"parsed"`
	Object    bool    `json:"object"`
	Type      *string `json:"type"`
	ID        *string `json:"id"`
	CheckedID *string `json:"checkedId"`
}

// jsReader is one Node process that reads lines as the extension does.
type jsReader struct {
	mu  sync.Mutex
	in  *bufio.Writer
	out *bufio.Scanner
}

var (
	jsOnce sync.Once
	js     *jsReader
	jsErr  string
)

// startJS starts the Node reader once for the test binary; without Node
// the test is skipped, unless CI is set.
func startJS(t testing.TB) *jsReader {
	jsOnce.Do(func() {
		node, err := exec.LookPath("node")
		if err != nil {
			jsErr = "node is not installed: " + err.Error()
			return
		}
		cmd := exec.Command(node, "testdata/envelope.mjs")
		cmd.Stderr = os.Stderr
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			jsErr = err.Error()
			return
		}
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		js = &jsReader{in: bufio.NewWriter(stdin), out: sc}
	})
	if js == nil {
		// The Windows tests run under Wine, without Node: the Linux run
		// of this test compares the two readers (the JSON is the same).
		if os.Getenv("CI") != "" && runtime.GOOS != "windows" {
			t.Fatalf("the extension's reader cannot run: %s (CI is set, so this fails)", jsErr)
		}
		t.Skipf("the extension's reader cannot run: %s", jsErr)
	}
	return js
}

func (r *jsReader) read(t testing.TB, line []byte) jsReading {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.in.WriteString(base64.StdEncoding.EncodeToString(line) + "\n")
	if err := r.in.Flush(); err != nil {
		t.Fatalf("writing to node: %v", err)
	}
	if !r.out.Scan() {
		t.Fatalf("node ended: %v", r.out.Err())
	}
	var got jsReading
	if err := json.Unmarshal(r.out.Bytes(), &got); err != nil {
		t.Fatalf("node said %s: %v", r.out.Bytes(), err)
	}
	return got
}

// sameReading fails t when the extension would read another type or id
// from line than PeekEnvelope did.
func sameReading(t *testing.T, r *jsReader, line []byte) {
	env, err := protocol.PeekEnvelope(line)
	if err != nil || !utf8.Valid(line) {
		return // refused (the host refuses a line that is not UTF-8 before it peeks)
	}
	got := r.read(t, line)
	str := func(p *string) string {
		if p == nil {
			return "<none>"
		}
		return *p
	}
	wantID := env.ID
	if wantID == "" && got.ID == nil {
		wantID = "<none>"
	}
	if !got.Parsed || !got.Object || str(got.Type) != env.Type || str(got.ID) != wantID {
		t.Fatalf("PeekEnvelope(%q) = type %q, id %q; the extension reads type %q, id %q (parsed %v, an object %v)", line, env.Type, env.ID, str(got.Type), str(got.ID), got.Parsed, got.Object)
	}
	if got.CheckedID != nil && *got.CheckedID != env.ID {
		t.Fatalf("PeekEnvelope(%q) = id %q; the extension's checkHostMessage passes on id %q", line, env.ID, *got.CheckedID)
	}
}

// FuzzPeekEnvelopeAsTheExtension: every line that PeekEnvelope takes is
// read by the extension (Node: JSON.parse and checkHostMessage) with the
// same type and id. The host checks a shim's call, request and cancel by
// the id it peeks and forwards the line unchanged, so any difference lets
// one agent act under another's name. Run it with
// go test -fuzz FuzzPeekEnvelopeAsTheExtension ./webmcp.
func FuzzPeekEnvelopeAsTheExtension(f *testing.F) {
	for _, c := range envelopeCases(f) {
		f.Add([]byte(c.Line))
	}
	for _, s := range []string{
		`{"type":"call","id":"s2.1","tabId":1,"frameId":0,"name":"x","arguments":{"id":"s1.1"}}`,
		`{"type":"request","id":"s2.1","method":"closeTab","params":{"tabId":3}}`,
		`{"type":"cancel","id":"s2.1","i\u0064":"s1.1"}`,
		`{"type":"cancel","id":"s2.1","\u0130d":"s1.1"}`,
		`{"type":"cancel","id":"s2.1","ıd":"s1.1"}`,
		`{"type":"cancel","id":"s2.1","__proto__":{"id":"s1.1"}}`,
		`{"type":"cancel","id":"s2.\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		sameReading(t, startJS(t), line)
	})
}

// BenchmarkPeekEnvelope peeks a call as the host does each call of a shim.
func BenchmarkPeekEnvelope(b *testing.B) {
	line := []byte(`{"type":"call","id":"s3.1742","tabId":1837261,"frameId":0,"name":"sum_numbers","arguments":{"a":20,"b":22,"note":"a few words of text"},"timeout":300000,"agent":"a1"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := protocol.PeekEnvelope(line); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPeekFrame(t *testing.T) {
	frame := []byte(`{"type":"batch","messages":[ {"type":"result","id":"s1.1","output":{"a":[1,"]"]}} ,{"type":"error","id":"s1.2"},{"ID":"x","type":"result"},null,{"type":"batch","messages":[]} ]}`)
	env, msgs, err := protocol.PeekFrame(frame)
	if err != nil || env.Type != protocol.TypeBatch {
		t.Fatalf("PeekFrame = %+v, %v", env, err)
	}
	want := []struct{ body, typ, id, err string }{
		{`{"type":"result","id":"s1.1","output":{"a":[1,"]"]}}`, "result", "s1.1", ""},
		{`{"type":"error","id":"s1.2"}`, "error", "s1.2", ""},
		{`{"ID":"x","type":"result"}`, "", "", `malformed message: the key "ID" differs from "id" in case alone`},
		{`null`, "", "", `malformed message: no "type"`},
		{`{"type":"batch","messages":[]}`, "batch", "", ""},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %q", len(msgs), len(want), msgs)
	}
	for i, w := range want {
		m := msgs[i]
		gotErr := ""
		if m.Err != nil {
			gotErr = m.Err.Error()
		}
		if string(m.Body) != w.body || gotErr != w.err || (w.err == "" && (m.Env.Type != w.typ || m.Env.ID != w.id)) {
			t.Errorf("message %d: %s %+v %q, want %s %s %s %q", i, m.Body, m.Env, gotErr, w.body, w.typ, w.id, w.err)
		}
	}
	for frame, wantErr := range map[string]string{
		`{"type":"batch","messages":{}}`:               `malformed batch: "messages" is not a list`,
		`{"type":"batch","Messages":null}`:             "",
		`{"type":"batch"}`:                             "",
		`{"type":"batch","messages":[],"messages":[]}`: `malformed message: the key "messages" is given twice`,
		`{"type":"batch","messages":[}`:                `malformed message: invalid character '}' looking for beginning of value`,
	} {
		_, msgs, err := protocol.PeekFrame([]byte(frame))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != wantErr || len(msgs) != 0 {
			t.Errorf("protocol.PeekFrame(%s) = %q, %v; want no messages, error %q", frame, msgs, err, wantErr)
		}
	}
	// Not a batch: the envelope alone.
	if env, msgs, err := protocol.PeekFrame([]byte(`{"type":"result","id":"s1.1","messages":[1]}`)); err != nil || env.ID != "s1.1" || msgs != nil {
		t.Errorf("a result: %+v %q %v", env, msgs, err)
	}
}

// BenchmarkPeekBatch reads a batch of 16 answers as the host reads one
// from the browser: with PeekFrame, which checks its JSON once, and as
// the host did before it (PeekEnvelope, a decoding of the batch, and
// PeekEnvelope of each message: the text scanned three times).
func BenchmarkPeekBatch(b *testing.B) {
	var msgs [][]byte
	for i := range 16 {
		msgs = append(msgs, []byte(fmt.Sprintf(`{"type":"result","id":"s3.%d","output":{"content":[{"type":"text","text":"the sum is 42"}],"structuredContent":{"sum":42}}}`, 1700+i)))
	}
	frame := protocol.AppendBatch(nil, msgs)
	b.Run("PeekFrame", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, batch, err := protocol.PeekFrame(frame)
			if err != nil || len(batch) != 16 || batch[15].Err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ThreeScans", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := protocol.PeekEnvelope(frame); err != nil {
				b.Fatal(err)
			}
			var m protocol.Message
			if err := json.Unmarshal(frame, &m); err != nil {
				b.Fatal(err)
			}
			for _, one := range m.Messages {
				if _, err := protocol.PeekEnvelope(one); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
