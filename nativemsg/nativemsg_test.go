package nativemsg_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/webmcp-bridge/bridge/nativemsg"
)

// frame builds a frame by hand: the length in native byte order, then body.
func frame(body string) []byte {
	b := make([]byte, 4, 4+len(body))
	nativemsg.ByteOrder.PutUint32(b, uint32(len(body)))
	return append(b, body...)
}

func TestRoundTrip(t *testing.T) {
	bodies := []string{
		`{"type":"hello"}`,
		"",
		"\x00\x01\xff binary is passed as is",
		`{"text":"é€𝄞"}`,
		strings.Repeat("x", 1<<20),
	}
	var buf bytes.Buffer
	w := nativemsg.NewWriter(&buf, 1<<20)
	for _, b := range bodies {
		if err := w.Write([]byte(b)); err != nil {
			t.Fatalf("Write(%d bytes): %v", len(b), err)
		}
	}
	// The writer's output is exactly the frames built by hand.
	var want []byte
	for _, b := range bodies {
		want = append(want, frame(b)...)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("the writer's bytes differ from the frames built by hand")
	}
	r := nativemsg.NewReader(&buf, 1<<20)
	for i, b := range bodies {
		got, err := r.Read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if string(got) != b {
			t.Errorf("frame %d: got %d bytes %.40q, want %d bytes %.40q", i, len(got), got, len(b), b)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

func TestReaderLimit(t *testing.T) {
	const max = 64 << 20
	for _, n := range []uint32{max + 1, 1 << 31, 0xFFFFFFFF} {
		// A header that claims n bytes, followed by almost nothing.
		var hdr [4]byte
		nativemsg.ByteOrder.PutUint32(hdr[:], n)
		input := append(hdr[:], `{"type":`...)

		var before, after runtime.MemStats
		const runs = 100
		runtime.ReadMemStats(&before)
		for range runs {
			_, err := nativemsg.NewReader(bytes.NewReader(input), max).Read()
			if !errors.Is(err, nativemsg.ErrTooLarge) {
				t.Fatalf("a %d-byte frame: %v, want ErrTooLarge", n, err)
			}
		}
		runtime.ReadMemStats(&after)
		if perRead := (after.TotalAlloc - before.TotalAlloc) / runs; perRead > 4<<10 {
			t.Errorf("refusing a %d-byte frame allocated %d bytes per read", n, perRead)
		}
	}
	// At the limit is allowed.
	body := strings.Repeat("y", 1000)
	got, err := nativemsg.NewReader(bytes.NewReader(frame(body)), len(body)).Read()
	if err != nil || string(got) != body {
		t.Errorf("a frame of exactly the limit: %v", err)
	}
	_, err = nativemsg.NewReader(bytes.NewReader(frame(body)), len(body)-1).Read()
	if !errors.Is(err, nativemsg.ErrTooLarge) || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("a frame one byte over the limit: %v, want ErrTooLarge naming its size", err)
	}
}

func TestTruncated(t *testing.T) {
	full := frame(`{"type":"state"}`)
	for _, tc := range []struct {
		name  string
		input []byte
		want  error
	}{
		{"empty", nil, io.EOF},
		{"half a header", full[:2], io.ErrUnexpectedEOF},
		{"header only", full[:4], io.ErrUnexpectedEOF},
		{"cut body", full[:10], io.ErrUnexpectedEOF},
	} {
		_, err := nativemsg.NewReader(bytes.NewReader(tc.input), 1<<20).Read()
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A good frame, then a cut one: the first reads, the second fails.
	r := nativemsg.NewReader(bytes.NewReader(append(full, full[:7]...)), 1<<20)
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut second frame: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestWriterLimit(t *testing.T) {
	var buf bytes.Buffer
	w := nativemsg.NewWriter(&buf, 10)
	if w.Max() != 10 {
		t.Errorf("Max() = %d", w.Max())
	}
	err := w.Write([]byte("01234567890"))
	if !errors.Is(err, nativemsg.ErrTooLarge) {
		t.Errorf("Write over the limit: %v, want ErrTooLarge", err)
	}
	if buf.Len() != 0 {
		t.Errorf("a refused frame wrote %d bytes", buf.Len())
	}
	if err := w.Write([]byte("0123456789")); err != nil {
		t.Errorf("Write at the limit: %v", err)
	}
}

func TestWriterError(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	if err := nativemsg.NewWriter(w, 100).Write([]byte("x")); err == nil {
		t.Errorf("Write to a pipe without a reader succeeded")
	}
}

// TestConcurrentWriters writes from many goroutines into a real pipe, with
// frames bigger than the pipe writes the kernel keeps whole, and checks that
// every frame arrives whole.
func TestConcurrentWriters(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	const writers, frames = 8, 50
	w := nativemsg.NewWriter(pw, 1<<20)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range frames {
				// writer g, frame i, padded with g's letter to a
				// size from 1 byte to ~200 KiB.
				pad := strings.Repeat(string(rune('a'+g)), (i*4099+g*977)%(200<<10))
				if err := w.Write(fmt.Appendf(nil, "%d %d %s", g, i, pad)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		pw.Close()
	}()

	r := nativemsg.NewReader(pr, 1<<20)
	next := make([]int, writers)
	for n := 0; ; n++ {
		body, err := r.Read()
		if err == io.EOF {
			if n != writers*frames {
				t.Errorf("read %d frames, want %d", n, writers*frames)
			}
			break
		}
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		var g, i int
		parts := bytes.SplitN(body, []byte(" "), 3)
		if len(parts) != 3 {
			t.Fatalf("frame %d is not whole: %.60q", n, body)
		}
		_, err1 := fmt.Sscan(string(parts[0]), &g)
		_, err2 := fmt.Sscan(string(parts[1]), &i)
		if err1 != nil || err2 != nil {
			t.Fatalf("frame %d is not whole: %.60q", n, body)
		}
		pad := string(parts[2])
		if g < 0 || g >= writers || i != next[g] {
			t.Fatalf("frame %d: writer %d frame %d, want frame %d of that writer", n, g, i, next[g])
		}
		next[g]++
		if strings.Trim(pad, string(rune('a'+g))) != "" {
			t.Fatalf("frame %d of writer %d holds another writer's bytes", i, g)
		}
	}
}

// FuzzReader reads arbitrary input: no panic, no frame over the limit, and
// the frames read, written again, give back the input they came from.
func FuzzReader(f *testing.F) {
	f.Add(frame(`{"type":"hello"}`))
	f.Add(append(frame("a"), frame("bc")...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{1, 0})
	f.Add(frame(strings.Repeat("z", 300)))
	f.Fuzz(func(t *testing.T, input []byte) {
		const max = 256
		r := nativemsg.NewReader(bytes.NewReader(input), max)
		var out bytes.Buffer
		w := nativemsg.NewWriter(&out, max)
		for {
			body, err := r.Read()
			if err != nil {
				if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, nativemsg.ErrTooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			if len(body) > max {
				t.Fatalf("a %d-byte frame over the %d limit", len(body), max)
			}
			if err := w.Write(body); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.HasPrefix(input, out.Bytes()) {
			t.Fatalf("frames written again differ from the input")
		}
	})
}
