package fakeext_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// hostBin is webmcp-host, built once for these tests.
var hostBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeext-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hostBin = filepath.Join(dir, "webmcp-host")
	cmd := exec.Command("go", "build", "-o", hostBin, "github.com/webmcp-bridge/bridge/cmd/webmcp-host")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building webmcp-host:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sequence is a file of testdata/protocol/sequences, which the extension's
// Node tests (extension/test/calls.test.js) play against the worker's
// pending-call table too.
type sequence struct {
	Doc   string `json:"doc"`
	Steps []struct {
		From    string          `json:"from"`
		To      string          `json:"to"`
		Message json.RawMessage `json:"message"`
		Dropped bool            `json:"dropped"`
	} `json:"steps"`
}

func readSequence(t *testing.T, name string) sequence {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/protocol/sequences", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s sequence
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// page plays the page (or, for requests, the extension's own work) behind
// the fake: each call blocks until the host cancels it, then until the
// test releases it with the late output.
type page struct {
	started, cancelled chan string
	release            chan json.RawMessage
	dropped            chan *protocol.Message
}

func newPage() *page {
	return &page{
		started:   make(chan string, 4),
		cancelled: make(chan string, 4),
		release:   make(chan json.RawMessage),
		dropped:   make(chan *protocol.Message, 4),
	}
}

func (p *page) handle(ctx context.Context, m *protocol.Message) (json.RawMessage, *protocol.Error) {
	if m.Name == "fence" {
		return json.RawMessage(`{"fence":true}`), nil
	}
	p.started <- m.ID
	<-ctx.Done()
	p.cancelled <- m.ID
	return <-p.release, nil
}

// shim is the test's end of a shim connection to the host.
type shim struct {
	conn net.Conn
	r    *bufio.Reader
}

func (s *shim) send(t *testing.T, line string) {
	t.Helper()
	if _, err := s.conn.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

// read returns the next line from the host but a hello: the host says hello
// again when the browser's hello comes after the shim connected.
func (s *shim) read(t *testing.T) string {
	t.Helper()
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading from the host: %v", err)
		}
		if !bytes.HasPrefix(line, []byte(`{"type":"hello",`)) {
			return string(bytes.TrimSuffix(line, []byte("\n")))
		}
	}
}

// TestGoldenCancelSequences plays the golden cancel sequences through a real
// webmcp-host and fakeext: the cancel is answered "cancelled" before the
// page has returned, the page's late answer is dropped, and a repeated
// cancel is ignored, so that the shim gets exactly one answer.
func TestGoldenCancelSequences(t *testing.T) {
	for _, name := range []string{"cancel-call", "cancel-request"} {
		t.Run(name, func(t *testing.T) {
			seq := readSequence(t, name)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			p := newPage()
			stderr := &lockedWriter{w: new(bytes.Buffer)}
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o700); err != nil { // the host checks that it is private
				t.Fatal(err)
			}
			ext, err := fakeext.Start(ctx, fakeext.Options{
				HostBinary: hostBin, RuntimeDir: dir, Stderr: stderr,
				Handler: p.handle, RequestHandler: p.handle,
				Env:       []string{"WEBMCP_DEBUG=1"}, // the host logs answers it drops
				OnDropped: func(m *protocol.Message) { p.dropped <- m },
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			t.Cleanup(func() {
				ext.Close()
				if t.Failed() {
					t.Logf("host and fakeext:\n%s", stderr.String())
				}
			})
			if err := ext.Hello(); err != nil {
				t.Fatal(err)
			}
			conn, err := net.Dial("unix", ext.Socket())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			s := &shim{conn: conn, r: bufio.NewReader(conn)}
			var hello protocol.Message
			if line, err := s.r.ReadBytes('\n'); err != nil || json.Unmarshal(line, &hello) != nil || hello.Session != "s1" {
				t.Fatalf("the host's hello: %s, %v; the golden ids are of session s1", line, err)
			}
			if line := s.read(t); !bytes.HasPrefix([]byte(line), []byte(`{"type":"state",`)) {
				t.Fatalf("after its hello the host sent %s, want the state", line)
			}
			s.send(t, `{"type":"hello","protocol":1,"client":{"name":"fakeext-test","pid":1}}`)

			for i, st := range seq.Steps {
				want := compact(t, st.Message)
				var m protocol.Message
				if err := json.Unmarshal(st.Message, &m); err != nil {
					t.Fatal(err)
				}
				switch {
				case st.From == "host" && st.To == "extension" && st.Dropped:
					// A cancel of a call answered already: the host, which
					// forwards cancels only for calls under way, ignores it
					// as the extension does. The fence below checks that no
					// answer came of it.
					s.send(t, want)
				case st.From == "host" && st.To == "extension":
					// The shim sends it; the host passes it on unchanged.
					s.send(t, want)
					got, err := ext.Await(ctx, func(got *protocol.Message) bool { return got.Type == m.Type && got.ID == m.ID })
					if err != nil {
						t.Fatal(err)
					}
					if b, _ := json.Marshal(got); string(b) != want {
						t.Errorf("step %d: the extension got %s, want %s", i, b, want)
					}
				case st.From == "extension" && st.To == "page":
					ch, what := p.started, "the page to be called"
					if m.Type == protocol.TypeCancel {
						ch, what = p.cancelled, "the page's call to be cancelled"
					}
					if id := bridgetest.Await(ctx, t, ch, what); id != m.ID {
						t.Errorf("step %d: %s %s, want %s", i, what, id, m.ID)
					}
				case st.From == "extension" && st.To == "host" && !st.Dropped:
					// It reaches the shim byte for byte, before the page has
					// returned (it is still blocked on p.release).
					if got := s.read(t); got != want {
						t.Errorf("step %d: the shim got %s, want %s", i, got, want)
					}
				case st.Dropped && (m.Type == protocol.TypeResult || m.Type == protocol.TypeError):
					// The page (or the request's work) answers late.
					p.release <- m.Output
					got := bridgetest.Await(ctx, t, p.dropped, "the late answer to be dropped")
					if b, _ := json.Marshal(got); string(b) != want {
						t.Errorf("step %d: dropped %s, want %s", i, b, want)
					}
				default:
					t.Fatalf("step %d: no way to play %s -> %s", i, st.From, st.To)
				}
			}
			// Nothing more for the cancelled id reaches the shim: the next
			// line is the answer to a fresh call.
			s.send(t, `{"type":"call","id":"s1.99","tabId":7,"frameId":0,"name":"fence","arguments":{}}`)
			if got, want := s.read(t), `{"type":"result","id":"s1.99","output":{"fence":true}}`; got != want {
				t.Errorf("after the sequence the shim got %s, want %s", got, want)
			}
			// Nor did a second answer reach the host, which would have
			// dropped it (it was read before the fence's call was sent).
			var id string
			json.Unmarshal(seq.Steps[0].Message, &struct {
				ID *string `json:"id"`
			}{&id})
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(line, "webmcp-host:") && strings.Contains(line, "dropped") && strings.Contains(line, "call "+id+":") {
					t.Errorf("the host got a second answer: %s", line)

				}
			}
		})
	}
}

// lockedWriter collects the host's stderr and fakeext's own lines, which
// come from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// goldenFile is a file of testdata/protocol: the cases of one message type.
type goldenFile struct {
	Cases []struct {
		Name    string          `json:"name"`
		Links   []string        `json:"links"`
		Message json.RawMessage `json:"message"`
	} `json:"cases"`
}

// TestGoldenMessagesPassThroughTheHost sends every golden message that
// crosses the host, from its side of the host, and checks what comes out
// the other side: the browser's messages reach the shim byte for byte (the
// host passes them on as it read them), the shim's reach the browser as
// the same message.
func TestGoldenMessagesPassThroughTheHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stderr := &lockedWriter{w: new(bytes.Buffer)}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ext, err := fakeext.Start(ctx, fakeext.Options{
		HostBinary: hostBin, RuntimeDir: dir, Stderr: stderr,
		// The test's own calls ("hold") stay under way: the test answers
		// them with golden bytes. The golden calls and requests are
		// answered at once.
		Handler: func(ctx context.Context, m *protocol.Message) (json.RawMessage, *protocol.Error) {
			if m.Name == "hold" {
				<-ctx.Done()
			}
			return nil, nil
		},
		RequestHandler: func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) { return nil, nil },
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		ext.Close()
		if t.Failed() {
			t.Logf("host and fakeext:\n%s", stderr.String())
		}
	})
	if err := ext.Hello(); err != nil {
		t.Fatal(err)
	}
	// The golden ids are of session s3, the third shim connection.
	var s *shim
	for i := 1; i <= 3; i++ {
		conn, err := net.Dial("unix", ext.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		s = &shim{conn: conn, r: bufio.NewReader(conn)}
		var hello protocol.Message
		if line, err := s.r.ReadBytes('\n'); err != nil || json.Unmarshal(line, &hello) != nil || hello.Session != fmt.Sprintf("s%d", i) {
			t.Fatalf("the host's hello: %s, %v", line, err)
		}
		s.read(t) // the state
		s.send(t, `{"type":"hello","protocol":1,"client":{"name":"fakeext-test","pid":1}}`)
	}

	files, err := filepath.Glob("../../testdata/protocol/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	crossed := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var f goldenFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range f.Cases {
			if c.Message == nil {
				continue // chunk frames: cut for a smaller limit than the host's
			}
			want := compact(t, c.Message)
			var m protocol.Message
			if err := json.Unmarshal(c.Message, &m); err != nil {
				t.Fatal(err)
			}
			if m.Type == protocol.TypeHello {
				continue // hellos are the host's own, and each link's first message
			}
			name := filepath.Base(path) + " " + c.Name
			switch {
			case slices.Contains(c.Links, "extension->host") && slices.Contains(c.Links, "host->shim"):
				if m.Type == protocol.TypeResult || m.Type == protocol.TypeError {
					// An answer goes to the shim whose call is under way.
					s.send(t, fmt.Sprintf(`{"type":"call","id":%q,"tabId":7,"frameId":0,"name":"hold","arguments":{}}`, m.ID))
					if _, err := ext.Await(ctx, func(got *protocol.Message) bool { return got.Type == protocol.TypeCall && got.ID == m.ID }); err != nil {
						t.Fatal(err)
					}
				}
				if err := ext.SendFrame([]byte(want)); err != nil {
					t.Fatal(err)
				}
				if got := withoutHostMark(t, []byte(s.read(t)), "host.answer"); got != want {
					t.Errorf("%s: the shim got\n%s\nwant\n%s", name, got, want)
				}
				crossed++
			case m.Type == protocol.TypeCancel:
				// The host passes a cancel on only while its call is under
				// way; TestGoldenCancelSequences plays it.
			case slices.Contains(c.Links, "shim->host") && slices.Contains(c.Links, "host->extension"):
				s.send(t, want)
				got, err := ext.Await(ctx, func(got *protocol.Message) bool { return got.Type == m.Type && got.ID == m.ID })
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := json.Marshal(got); withoutHostMark(t, b, "host.call") != want {
					t.Errorf("%s: the browser got\n%s\nwant\n%s", name, b, want)
				}
				// The answer (the fake extension's; a traced call's carries its marks back).
				var a protocol.Message
				line := s.read(t)
				if err := json.Unmarshal([]byte(line), &a); err != nil || a.Type != protocol.TypeResult || a.ID != m.ID || string(a.Output) != "null" || (a.Trace == nil) != (m.Trace == nil) {
					t.Errorf("%s: the shim got %s, want a result of null for %s", name, line, m.ID)
				}
				crossed++
			}
		}
	}
	if crossed < 20 {
		t.Errorf("only %d golden messages crossed the host", crossed)
	}
}

// withoutHostMark returns got, a message the host passed on, without the
// timing mark hop that the host adds to a traced call or answer (it must be
// the last); other messages pass unchanged.
func withoutHostMark(t *testing.T, got []byte, hop string) string {
	t.Helper()
	if !bytes.Contains(got, []byte(`"trace":[`)) {
		return string(got)
	}
	var m protocol.Message
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Trace) == 0 || m.Trace[len(m.Trace)-1].Hop != hop || m.Trace[len(m.Trace)-1].At <= 0 {
		t.Errorf("the host did not add its mark %q: %s", hop, got)
		return string(got)
	}
	m.Trace = m.Trace[:len(m.Trace)-1]
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
