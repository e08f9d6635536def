// Package nativemsg reads and writes Chrome native-messaging frames: a
// 4-byte length in native byte order, then that many bytes of UTF-8 JSON.
//
// A [Reader] refuses a frame longer than its limit before allocating it; a
// [Writer] refuses one longer than its limit before writing anything, and is
// safe for concurrent use.
package nativemsg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ByteOrder is the byte order of the length prefix: native, and every
// platform Chrome runs native hosts on is little-endian.
var ByteOrder = binary.NativeEndian

// ErrTooLarge is wrapped by the errors for frames over a limit.
var ErrTooLarge = errors.New("frame too large")

// Reader reads frames from an io.Reader.
type Reader struct {
	r   io.Reader
	max int
	hdr [4]byte
}

// NewReader returns a Reader that refuses frames longer than max bytes.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{r: r, max: max}
}

// Read returns the next frame's body. At a clean end of input it returns
// io.EOF; a stream cut inside a frame gives io.ErrUnexpectedEOF. A frame over
// the limit gives an error wrapping ErrTooLarge; the stream cannot be read
// further after it, since the frame is not consumed.
func (r *Reader) Read() ([]byte, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		return nil, err
	}
	n := ByteOrder.Uint32(r.hdr[:])
	if uint64(n) > uint64(r.max) {
		return nil, fmt.Errorf("nativemsg: incoming frame of %d bytes is over the %d-byte limit: %w", n, r.max, ErrTooLarge)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("nativemsg: reading a %d-byte frame: %w", n, err)
	}
	return buf, nil
}

// Writer writes frames to an io.Writer. Its methods may be called from
// several goroutines at once; each frame is written whole.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	max int
	buf []byte
}

// NewWriter returns a Writer that refuses frames longer than max bytes.
func NewWriter(w io.Writer, max int) *Writer {
	return &Writer{w: w, max: max}
}

// Max is the largest frame body w writes.
func (w *Writer) Max() int { return w.max }

// Write writes body as one frame.
func (w *Writer) Write(body []byte) error {
	if len(body) > w.max {
		return fmt.Errorf("nativemsg: outgoing frame of %d bytes is over the %d-byte limit: %w", len(body), w.max, ErrTooLarge)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// One write call per frame: header and body together.
	w.buf = append(w.buf[:0], 0, 0, 0, 0)
	ByteOrder.PutUint32(w.buf, uint32(len(body)))
	w.buf = append(w.buf, body...)
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > 64<<10 {
		w.buf = nil // do not hold on to a large buffer
	}
	return err
}
