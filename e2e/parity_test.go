package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// On allowed sites the agent gets what the browser's own agent (CDP's
// WebMCP.invokeTool) gets, in both modes (issue FID): pages of
// testdata/parity, called through the bridge and, in native mode, through
// CDP beside it.

// parityPages serves testdata/parity on a loopback port of its own (an
// allowed origin: localhost, any port), started once.
var parityPages = sync.OnceValues(func() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	files := http.FileServer(http.Dir("testdata/parity"))
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	return ln.Addr().(*net.TCPAddr).Port, nil
})

// parityURL is the URL of a page of testdata/parity on localhost.
func parityURL(t testing.TB, path string) string {
	t.Helper()
	port, err := parityPages()
	if err != nil {
		t.Fatalf("serve the parity pages: %v", err)
	}
	return "http://localhost:" + strconv.Itoa(port) + path
}

// sameJSON reports whether a and b are the same JSON value, written alike
// once compacted.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// Arguments off the tool's inputSchema (a showtime its wrong pattern does
// not match, a name shorter than its minLength) run in the page, as they
// do for the browser's own agent, which checks none of the schema; the
// bridge's result is the page's answer, with a note after it that says
// what did not match.
func TestArgumentsOffTheSchema(t *testing.T) {
	cases := []struct {
		args  map[string]any
		ruled string // what the note names; "" for arguments that fit
	}{
		{map[string]any{"showtime": "8:00 PM"}, `field "showtime": does not match the pattern`},
		{map[string]any{"showtime": "1:00 PM", "name": "Al"}, `field "name": must be at least 3 characters long, got 2`},
		{map[string]any{"showtime": "1:00 PM", "name": "Alice"}, ""},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		tab, _ := b.open(parityURL(t, "/showtimes.html"))
		b.waitTool("book_showtime")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
		defer cancel()
		var cdpt *cdpTools
		if m == native {
			var err error
			if cdpt, err = newCDPTools(tab); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range cases {
			in := mustJSON(tc.args)
			want := []byte(`{"booked":` + in + `}`)
			if cdpt != nil {
				e, err := cdpt.invoke(ctx, "book_showtime", []byte(in))
				if err != nil {
					t.Fatalf("the browser's own agent: %v", err)
				}
				if !sameJSON(e.Output, want) {
					t.Fatalf("the browser's own agent got %s for %s, want %s", e.Output, in, want)
				}
			}
			res := b.call(ctx, "book_showtime", tc.args)
			if res.IsError || len(res.Content) == 0 {
				t.Errorf("book_showtime(%s) through the bridge = %q (isError %v), want the page's answer %s", in, text(res), res.IsError, want)
				continue
			}
			if got := res.Content[0].(*mcp.TextContent).Text; !sameJSON([]byte(got), want) {
				t.Errorf("book_showtime(%s) through the bridge answered %s, want %s, as the browser's own agent", in, got, want)
			}
			mismatch, _ := res.Meta["dev.webmcp/inputSchemaMismatch"].(string)
			switch {
			case tc.ruled == "" && (len(res.Content) != 1 || mismatch != ""):
				t.Errorf("book_showtime(%s) fits the schema, yet the result is %q (_meta %v)", in, text(res), res.Meta)
			case tc.ruled != "" && (len(res.Content) != 2 || !strings.Contains(text(res), tc.ruled) || !strings.Contains(mismatch, tc.ruled)):
				t.Errorf("book_showtime(%s) = %q (_meta %v), want the page's answer and a note naming %s", in, text(res), res.Meta, tc.ruled)
			}
		}
		// Every call ran in the page: the browser's and the bridge's alike.
		want := len(cases)
		if m == native {
			want *= 2
		}
		if n := eval[int](t, tab, `window.booked.length`); n != want {
			t.Errorf("the page booked %d times, want %d", n, want)
		}
	})
}
