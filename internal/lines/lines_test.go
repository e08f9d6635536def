package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	// A buffer smaller than the lines: they come in fragments.
	r := bufio.NewReaderSize(strings.NewReader("short\n\n"+strings.Repeat("x", 40)+"\n"+strings.Repeat("y", 50)+"\nlast"), 16)
	for _, want := range []string{"short", "", strings.Repeat("x", 40), strings.Repeat("y", 50), "last"} {
		got, err := Read(r, 50)
		if err != nil || string(got) != want {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := Read(r, 50); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v", err)
	}
}

func TestReadTooLong(t *testing.T) {
	for _, in := range []string{strings.Repeat("y", 100) + "\n", strings.Repeat("y", 51) + "\n", strings.Repeat("z", 51)} {
		r := bufio.NewReaderSize(strings.NewReader(in), 16)
		_, err := Read(r, 50)
		if !errors.Is(err, ErrTooLong) || err.Error() != "a line longer than 50 bytes" {
			t.Errorf("a line of %d bytes: %v, want ErrTooLong", len(strings.TrimSuffix(in, "\n")), err)
		}
	}
}

// The line is the caller's: reading on does not change it.
func TestReadOwnSlice(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("first\nsecond\n"), 16)
	first, _ := Read(r, 50)
	Read(r, 50)
	if string(first) != "first" {
		t.Errorf("the first line became %q", first)
	}
}
