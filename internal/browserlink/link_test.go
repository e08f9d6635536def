package browserlink_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// frames is the native-messaging stream of the given frames.
func frames(t *testing.T, bodies ...string) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	w := nativemsg.NewWriter(&buf, 1<<30)
	for _, b := range bodies {
		if err := w.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	return &buf
}

// written reads back the frames written to buf.
func written(t *testing.T, buf *bytes.Buffer) []string {
	t.Helper()
	r := nativemsg.NewReader(bytes.NewReader(buf.Bytes()), 1<<30)
	var out []string
	for {
		b, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
}

// logs keeps a link's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// outLink is a link that writes frames of at most max bytes to out.
func outLink(out io.Writer, max int, opts browserlink.Options) *browserlink.Link {
	return browserlink.New(nativemsg.NewReader(strings.NewReader(""), max), nativemsg.NewWriter(out, max), opts)
}

func TestSendOneFrameEach(t *testing.T) {
	var out bytes.Buffer
	l := outLink(&out, 1024, browserlink.Options{})
	for _, m := range []string{`{"type":"call","id":"s1.1"}`, `{"type":"cancel","id":"s1.1"}`} {
		if err := l.Send([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`{"type":"call","id":"s1.1"}`, `{"type":"cancel","id":"s1.1"}`}
	if got := written(t, &out); !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

func TestSendCutsABigMessageIntoChunks(t *testing.T) {
	var out bytes.Buffer
	l := outLink(&out, 1024, browserlink.Options{})
	big := `{"type":"call","id":"s1.1","arguments":{"x":"` + strings.Repeat("é", 1500) + `"}}`
	if err := l.Send([]byte(big)); err != nil {
		t.Fatal(err)
	}
	got := written(t, &out)
	if len(got) < 3 {
		t.Fatalf("a %d-byte message went in %d frames, want at least 3 chunks", len(big), len(got))
	}
	var j protocol.Joiner
	for i, f := range got {
		if len(f) > 1024 {
			t.Errorf("chunk %d has %d bytes, over the limit", i, len(f))
		}
		if !strings.HasPrefix(f, `{"type":"chunk","id":"c1","seq":`) {
			t.Errorf("frame %d is %.60q…, want chunk c1", i, f)
		}
		var m protocol.Message
		if err := json.Unmarshal([]byte(f), &m); err != nil {
			t.Fatal(err)
		}
		msg, done, err := j.Add(&m)
		if err != nil || done != (i == len(got)-1) {
			t.Fatalf("chunk %d: done %v, %v", i, done, err)
		}
		if done && string(msg) != big {
			t.Errorf("joined %.60q…, want the message", msg)
		}
	}
	// The next chunked message has an id of its own.
	out.Reset()
	l.Send([]byte(big))
	if got := written(t, &out); !strings.HasPrefix(got[0], `{"type":"chunk","id":"c2",`) {
		t.Errorf("the second chunked message begins %.60q", got[0])
	}
}

func TestSendManyBatchesOnlyWhenTheBrowserTakesBatches(t *testing.T) {
	msgs := [][]byte{[]byte(`{"type":"call","id":"s1.1"}`), []byte(`{"type":"cancel","id":"s1.1"}` + "\n"), []byte(`{"type":"call","id":"s1.2"}`)}
	for _, tc := range []struct {
		batch bool
		max   int
		want  []string
	}{
		{false, 1024, []string{`{"type":"call","id":"s1.1"}`, `{"type":"cancel","id":"s1.1"}` + "\n", `{"type":"call","id":"s1.2"}`}},
		{true, 1024, []string{`{"type":"batch","messages":[{"type":"call","id":"s1.1"},{"type":"cancel","id":"s1.1"},{"type":"call","id":"s1.2"}]}`}},
		// 116 bytes together: they do not fit in one frame of 115.
		{true, 115, []string{`{"type":"call","id":"s1.1"}`, `{"type":"cancel","id":"s1.1"}` + "\n", `{"type":"call","id":"s1.2"}`}},
		{true, 116, []string{`{"type":"batch","messages":[{"type":"call","id":"s1.1"},{"type":"cancel","id":"s1.1"},{"type":"call","id":"s1.2"}]}`}},
	} {
		var out bytes.Buffer
		l := outLink(&out, tc.max, browserlink.Options{})
		l.SetBatch(tc.batch)
		if n, err := l.SendMany(msgs); n != 3 || err != nil {
			t.Fatalf("SendMany = %d, %v", n, err)
		}
		if got := written(t, &out); !slices.Equal(got, tc.want) {
			t.Errorf("batch %v, limit %d: frames %q, want %q", tc.batch, tc.max, got, tc.want)
		}
	}
	// One message goes alone.
	var out bytes.Buffer
	l := outLink(&out, 1024, browserlink.Options{})
	l.SetBatch(true)
	l.SendMany(msgs[:1])
	if got, want := written(t, &out), []string{`{"type":"call","id":"s1.1"}`}; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

// failAfter is a stream that takes n writes, then fails.
type failAfter struct {
	n      int
	writes int
}

var errBroken = errors.New("broken pipe")

func (f *failAfter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > f.n {
		return 0, errBroken
	}
	return len(p), nil
}

func TestSendManySaysHowManyWent(t *testing.T) {
	var log logs
	l := outLink(&failAfter{n: 1}, 1024, browserlink.Options{Logf: log.printf})
	n, err := l.SendMany([][]byte{[]byte(`{"type":"call","id":"s1.1"}`), []byte(`{"type":"call","id":"s1.2"}`), []byte(`{"type":"call","id":"s1.3"}`)})
	if n != 1 || !errors.Is(err, errBroken) {
		t.Errorf("SendMany = %d, %v; want 1 and the stream's error", n, err)
	}
	if err := l.Send([]byte(`{"type":"call","id":"s1.4"}`)); !errors.Is(err, errBroken) {
		t.Errorf("Send = %v", err)
	}
	// The failure is logged once.
	if got, want := log.get(), []string{"writing to the browser: broken pipe"}; !slices.Equal(got, want) {
		t.Errorf("log %q, want %q", got, want)
	}
}

// inLink is a link that reads the frames of in.
func inLink(in io.Reader, opts browserlink.Options) *browserlink.Link {
	return browserlink.New(nativemsg.NewReader(in, 4096), nativemsg.NewWriter(io.Discard, 1024), opts)
}

// receiveAll receives until the link's input ends, and writes each
// message as "type id body", with " more" when More is set.
func receiveAll(t *testing.T, l *browserlink.Link) ([]string, error) {
	t.Helper()
	var got []string
	for {
		m, err := l.Receive()
		if err != nil {
			return got, err
		}
		s := m.Env.Type + " " + m.Env.ID + " " + string(m.Body)
		if m.More {
			s += " more"
		}
		got = append(got, s)
	}
}

func TestReceiveUnpacksBatches(t *testing.T) {
	var log logs
	in := frames(t,
		`{"type":"result","id":"s1.1","output":1}`,
		`{"type":"batch","messages":[{"type":"result","id":"s1.2","output":2}, {"type":"tabRemoved","tabId":7} ,{"type":"error","id":"s2.1"}]}`,
		`{"type":"batch","messages":[{"type":"result","id":"s1.3"},{"type":"batch","messages":[]},{"type":"chunk","id":"c1","seq":0,"last":true,"data":"{}"},{"type":"result","ID":"s1.4"},{"type":"result","id":"s1.5"},{"type":"batch"}]}`,
		`{"type":"batch","messages":[]}`,
		`{"type":"batch","messages":[{"type":"batch","messages":[]}]}`,
		`{"type":"batch","messages":{}}`,
		`{"type":"result","id":"s1.6"}`,
	)
	got, err := receiveAll(t, inLink(in, browserlink.Options{Logf: log.printf}))
	if !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	want := []string{
		`result s1.1 {"type":"result","id":"s1.1","output":1}`,
		`result s1.2 {"type":"result","id":"s1.2","output":2} more`,
		`tabRemoved  {"type":"tabRemoved","tabId":7} more`,
		`error s2.1 {"type":"error","id":"s2.1"}`,
		`result s1.3 {"type":"result","id":"s1.3"} more`,
		`result s1.5 {"type":"result","id":"s1.5"}`,
		`result s1.6 {"type":"result","id":"s1.6"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantLog := []string{
		"the browser sent a batch inside a chunked message or a batch; skipped",
		"the browser sent a chunk inside a chunked message; skipped",
		`the browser sent a malformed message: the key "ID" differs from "id" in case alone; skipped: "{\"type\":\"result\",\"ID\":\"s1.4\"}"`,
		"the browser sent a batch inside a chunked message or a batch; skipped",
		"the browser sent a batch inside a chunked message or a batch; skipped",
		`the browser sent a malformed batch: "messages" is not a list; skipped: "{\"type\":\"batch\",\"messages\":{}}"`,
	}
	if got := log.get(); !slices.Equal(got, wantLog) {
		t.Errorf("log\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}
}

func TestReceiveJoinsChunks(t *testing.T) {
	var log logs
	in := frames(t,
		`{"type":"chunk","id":"c1","seq":0,"data":"{\"type\":\"result\","}`,
		`{"type":"pins","pins":[]}`, // another message between the pieces
		`{"type":"chunk","id":"c1","seq":1,"last":true,"data":"\"id\":\"s1.1\"}"}`,
		`{"type":"chunk","id":"c2","seq":0,"last":true,"data":"{\"type\":\"batch\",\"messages\":[]}"}`,
		`{"type":"chunk","id":"c3","seq":0,"last":true,"data":"{\"type\":\"chunk\",\"id\":\"c4\"}"}`,
		`{"type":"chunk","id":"c5","seq":1,"last":true,"data":"}"}`,
		`{"type":"chunk","seq":0,"data":"{"}`,
		`{"type":"chunk","id":"c6","seq":0,"last":true,"data":"{\"type\":1}"}`,
		`{"type":"chunk","id":"c7","seq":0,"data":"{\"type\":\"result\",\"id\":\"s1.2\",\"output\":\"0123456789"}`,
		`{"type":"chunk","id":"c7","seq":1,"last":true,"data":"\"}"}`,
	)
	got, err := receiveAll(t, inLink(in, browserlink.Options{Logf: log.printf, MaxJoined: 40}))
	if !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
	want := []string{
		`pins  {"type":"pins","pins":[]}`,
		`result s1.1 {"type":"result","id":"s1.1"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantLog := []string{
		"the browser sent a batch inside a chunked message or a batch; skipped",
		"the browser sent a chunk inside a chunked message; skipped",
		`the browser's chunked message: chunk "c5": got piece 1, want 0; the message is dropped`,
		`the browser sent a malformed chunk (<nil>); skipped: "{\"type\":\"chunk\",\"seq\":0,\"data\":\"{\"}"`,
		`the browser sent a malformed message: "type" is not a string; skipped: "{\"type\":1}"`,
		`the browser's chunked message: chunk "c7": the message grows past 40 bytes; it is dropped`,
		`the browser's chunked message: chunk "c7": got piece 1, want 0; the message is dropped`,
	}
	if got := log.get(); !slices.Equal(got, wantLog) {
		t.Errorf("log\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}
}

func TestReceiveSkipsMalformedFrames(t *testing.T) {
	var log logs
	in := frames(t, `{"type":"result"`, `[1]`, `{"type":"result","id":"s1.1"}`)
	got, _ := receiveAll(t, inLink(in, browserlink.Options{Logf: log.printf}))
	if want := []string{`result s1.1 {"type":"result","id":"s1.1"}`}; !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
	wantLog := []string{
		`the browser sent a malformed message: unexpected end of JSON input; skipped: "{\"type\":\"result\""`,
		`the browser sent a malformed message: not a JSON object; skipped: "[1]"`,
	}
	if got := log.get(); !slices.Equal(got, wantLog) {
		t.Errorf("log %q, want %q", got, wantLog)
	}
}

func TestReceiveStopsAtABrokenStream(t *testing.T) {
	in := frames(t, `{"type":"result","id":"s1.1"}`, strings.Repeat(" ", 5000))
	got, err := receiveAll(t, inLink(in, browserlink.Options{}))
	if len(got) != 1 || !errors.Is(err, nativemsg.ErrTooLarge) {
		t.Errorf("got %q, %v; want the result, then ErrTooLarge", got, err)
	}
	in = frames(t, `{"type":"result","id":"s1.1"}`)
	in.Truncate(in.Len() - 1)
	if _, err := receiveAll(t, inLink(in, browserlink.Options{})); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a cut frame: %v, want io.ErrUnexpectedEOF", err)
	}
}

// A queue sends what it holds at once, as one batch, unless under load.
func TestQueueSendsWhatIsReadyTogether(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex // out's: a hold's timer may write
	l := outLink(lockedWriter{&mu, &out}, 1024, browserlink.Options{Hold: time.Hour, HoldMax: 3, UnderLoad: func(int) bool { return false }})
	l.SetBatch(true)
	q := l.NewQueue(nil)
	q.Add("s1.1", []byte(`{"type":"call","id":"s1.1"}`))
	q.Add("", []byte(`{"type":"cancel","id":"s1.1"}`))
	q.SendOrHold()
	q.SendOrHold() // nothing held: nothing sent
	mu.Lock()
	got := written(t, &out)
	mu.Unlock()
	if want := []string{`{"type":"batch","messages":[{"type":"call","id":"s1.1"},{"type":"cancel","id":"s1.1"}]}`}; !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func TestQueueHoldsUnderLoad(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	frames := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return written(t, &out)
	}
	var asked []int
	load := true
	opts := browserlink.Options{Hold: time.Hour, HoldMax: 3, UnderLoad: func(held int) bool {
		asked = append(asked, held)
		return load
	}}
	l := outLink(lockedWriter{&mu, &out}, 1024, opts)
	q := l.NewQueue(nil)

	// A browser without batches: nothing is held, and the load is not
	// asked.
	q.Add("s1.1", []byte(`{"type":"call","id":"s1.1"}`))
	q.SendOrHold()
	if got := frames(); len(got) != 1 || asked != nil {
		t.Fatalf("without batches: frames %q, load asked %v; want the call at once", got, asked)
	}

	l.SetBatch(true)
	q.Add("s1.2", []byte(`{"type":"call","id":"s1.2"}`))
	q.SendOrHold()
	q.Add("s1.3", []byte(`{"type":"call","id":"s1.3"}`))
	q.SendOrHold() // the hold goes on
	if got := frames(); len(got) != 1 || q.Full() || !slices.Equal(asked, []int{1}) {
		t.Fatalf("under load: frames %q, full %v, load asked %v; want two calls held, the load asked once, for 1", got, q.Full(), asked)
	}
	q.Add("s1.4", []byte(`{"type":"call","id":"s1.4"}`))
	if !q.Full() {
		t.Fatalf("3 held, HoldMax 3: not full")
	}
	q.Flush()
	want := []string{`{"type":"call","id":"s1.1"}`, `{"type":"batch","messages":[{"type":"call","id":"s1.2"},{"type":"call","id":"s1.3"},{"type":"call","id":"s1.4"}]}`}
	if got := frames(); !slices.Equal(got, want) {
		t.Errorf("frames %q, want %q", got, want)
	}

	// HoldMax added at once: they go at once, without asking the load.
	asked = nil
	for i := range 3 {
		q.Add("", []byte(fmt.Sprintf(`{"type":"cancel","id":"s1.%d"}`, i+2)))
	}
	q.SendOrHold()
	if got := frames(); len(got) != 3 || asked != nil {
		t.Errorf("HoldMax messages: frames %q, load asked %v; want them at once", got, asked)
	}
}

func TestQueueHoldEnds(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	wrote := make(chan struct{}, 1) // a write happened (the hold's timer sent)
	w := notifyWriter{lockedWriter{&mu, &out}, wrote}
	l := outLink(w, 1024, browserlink.Options{Hold: 10 * time.Millisecond, HoldMax: 16, UnderLoad: func(int) bool { return true }})
	l.SetBatch(true)
	q := l.NewQueue(nil)
	hang := time.After(10 * time.Second)  // a hang guard only
	for round := 1; round <= 2; round++ { // the timer is used again
		q.Add("s1.1", []byte(`{"type":"call","id":"s1.1"}`))
		q.SendOrHold()
		for {
			mu.Lock()
			n := len(written(t, &out))
			mu.Unlock()
			if n == round {
				break
			}
			select {
			case <-wrote:
			case <-hang:
				t.Fatalf("round %d: the held call never went", round)
			}
		}
	}
}

// notifyWriter tells wrote (without blocking) after each write.
type notifyWriter struct {
	w     io.Writer
	wrote chan<- struct{}
}

func (w notifyWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func TestQueueFullAtAFrame(t *testing.T) {
	l := outLink(io.Discard, 1024, browserlink.Options{})
	q := l.NewQueue(nil)
	q.Add("a", make([]byte, 1023))
	if q.Full() {
		t.Errorf("1023 bytes of a 1024-byte frame: full")
	}
	q.Add("b", []byte("x"))
	if !q.Full() {
		t.Errorf("a frame's worth: not full")
	}
}

func TestQueueTellsWhatDidNotGo(t *testing.T) {
	var failed []string
	var why error
	l := outLink(&failAfter{n: 1}, 1024, browserlink.Options{})
	q := l.NewQueue(func(tags []string, err error) {
		failed, why = append(failed, tags...), err
	})
	q.Add("s1.1", []byte(`{"type":"call","id":"s1.1"}`))
	q.Add("", []byte(`{"type":"cancel","id":"s1.0"}`))
	q.Add("s1.2", []byte(`{"type":"call","id":"s1.2"}`))
	q.Flush()
	if want := []string{"", "s1.2"}; !slices.Equal(failed, want) || !errors.Is(why, errBroken) {
		t.Errorf("failed %q (%v), want %q and the stream's error", failed, why, want)
	}
	// What failed is not held: the next send starts afresh.
	failed = nil
	q.Flush()
	if failed != nil {
		t.Errorf("an empty queue failed %q", failed)
	}
}
