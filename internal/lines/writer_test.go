package lines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// gate is a stream whose writes wait until the test lets them through; it
// keeps what each write carried.
type gate struct {
	entered chan []byte  // a write began, with these bytes
	release chan outcome // the write ends so
	mu      sync.Mutex
	writes  []string
}

// outcome is how a write of a gate ends: n bytes went out (all of them when
// err is nil), then err.
type outcome struct {
	n   int
	err error
}

func newGate() *gate {
	return &gate{entered: make(chan []byte), release: make(chan outcome)}
}

func (g *gate) Write(p []byte) (int, error) {
	g.entered <- p
	o := <-g.release
	g.mu.Lock()
	g.writes = append(g.writes, string(p))
	g.mu.Unlock()
	if o.err != nil {
		return o.n, o.err
	}
	return len(p), nil
}

// joined waits until the bytes that wait for w's next write are n.
func joined(t *testing.T, w *Writer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // a hang guard
	for {
		w.mu.Lock()
		got := 0
		if w.open != nil {
			got = len(w.open.buf)
		}
		w.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes joined the next write, want %d", got, n)
		}
		runtime.Gosched()
	}
}

// writeAsync writes msg to w in a goroutine of its own; the channel gets
// its error.
func writeAsync(w *Writer, msg string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte(msg))
		ch <- err
	}()
	return ch
}

func TestWriterGathersWritesMadeMeanwhile(t *testing.T) {
	g := newGate()
	w := NewWriter(g)
	first := writeAsync(w, "first\n")
	if got := string(<-g.entered); got != "first\n" {
		t.Fatalf("first write %q, want the first line alone", got)
	}
	// While it is under way, four more lines come, two of them in one
	// message.
	msgs := []string{"a\n", "b\n", "c\nd\n", "e\n"}
	var errs []<-chan error
	size := 0
	for _, m := range msgs {
		size += len(m)
		errs = append(errs, writeAsync(w, m))
	}
	joined(t, w, size)
	g.release <- outcome{}
	// The goroutine that wrote first makes the next write too.
	second := string(<-g.entered)
	g.release <- outcome{}
	if err := <-first; err != nil {
		t.Fatalf("first Write: %v", err)
	}
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	// One write carried the four messages, each whole.
	for _, m := range msgs {
		if !strings.Contains(second, m) {
			t.Errorf("second write %q lacks %q", second, m)
		}
	}
	if len(second) != size {
		t.Errorf("second write %q has %d bytes, want %d", second, len(second), size)
	}
	if len(g.writes) != 2 {
		t.Errorf("writes %q, want two", g.writes)
	}
}

func TestWriterKeepsMessagesWholeAndInOrder(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	const writers, each = 8, 500
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				// Messages of many sizes, some longer than a pipe's
				// atomic write.
				line := fmt.Sprintf("%d %d %s\n", i, j, strings.Repeat("x", (i*each+j)%5000))
				if _, err := w.Write([]byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	next := make([]int, writers)
	r := bufio.NewReader(&buf)
	for n := 0; ; n++ {
		line, err := Read(r, 1<<20)
		if err == io.EOF {
			if n != writers*each {
				t.Fatalf("%d lines, want %d", n, writers*each)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var i, j int
		var xs string
		if _, err := fmt.Sscanf(string(line), "%d %d %s", &i, &j, &xs); err != nil && (i*each+j)%5000 != 0 {
			t.Fatalf("line %d %.40q: %v", n, line, err)
		}
		if j != next[i] || len(xs) != (i*each+j)%5000 || strings.Trim(xs, "x") != "" {
			t.Fatalf("line %d %.40q: want writer %d's message %d, whole", n, line, i, next[i])
		}
		next[i]++
	}
}

func TestWriterErrorReachesEveryMessageItCarried(t *testing.T) {
	g := newGate()
	w := NewWriter(g)
	first := writeAsync(w, "first\n")
	<-g.entered
	later := []<-chan error{writeAsync(w, "a\n"), writeAsync(w, "b\n")}
	joined(t, w, 4)
	broken := errors.New("broken pipe")
	g.release <- outcome{0, broken}
	// The stream broke: the first message's Write and both that waited
	// for the next write fail with its error, and the next write is never
	// made.
	if err := <-first; !errors.Is(err, broken) {
		t.Errorf("first Write: %v, want %v", err, broken)
	}
	for _, ch := range later {
		if err := <-ch; !errors.Is(err, broken) {
			t.Errorf("joined Write: %v, want %v", err, broken)
		}
	}
	if _, err := w.Write([]byte("after\n")); !errors.Is(err, broken) {
		t.Errorf("Write after the error: %v, want %v", err, broken)
	}
	if want := []string{"first\n"}; !slices.Equal(g.writes, want) {
		t.Errorf("writes %q, want %q", g.writes, want)
	}
}

func TestWriterAloneWritesItsMessageAsIs(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, m := range []string{"one\n", "two\nthree\n"} {
		if n, err := w.Write([]byte(m)); n != len(m) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", m, n, err)
		}
	}
	if got, want := buf.String(), "one\ntwo\nthree\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestWriterErrorSparesTheMessagesThatWentOutWhole(t *testing.T) {
	g := newGate()
	w := NewWriter(g)
	first := writeAsync(w, "first\n")
	<-g.entered
	errs := map[string]<-chan error{"a\n": writeAsync(w, "a\n"), "bb\n": writeAsync(w, "bb\n")}
	joined(t, w, 5)
	g.release <- outcome{}
	second := string(<-g.entered)
	// The stream takes the first message of the second write, and one byte
	// of the other, then breaks.
	head, tail, _ := strings.Cut(second, "\n")
	head += "\n"
	broken := errors.New("broken pipe")
	g.release <- outcome{len(head) + 1, broken}
	if err := <-first; err != nil {
		t.Errorf("first Write: %v, want it written", err)
	}
	if err := <-errs[head]; err != nil {
		t.Errorf("Write(%q), which went out whole: %v", head, err)
	}
	if err := <-errs[tail]; !errors.Is(err, broken) {
		t.Errorf("Write(%q), cut: %v, want %v", tail, err, broken)
	}
}
