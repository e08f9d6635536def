package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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

// A declarative form that submits to another document: Chromium answers
// the call with that document's application/ld+json data (an array; []
// when it has none; a script that is not JSON left out) once the document
// is parsed. The bridge answers with the same, first, and then says where
// the tab went, without waiting NavigationWait for tools the page never
// brings. (A next document whose load never ends, an image that never
// comes, made Chromium 156 leave the CDP call unanswered now and then, and
// crash as its tab closed: left out.)
func TestFormAnswerIsTheNextDocument(t *testing.T) {
	cases := []struct {
		tool, want, title string
	}{
		{"book_seats", `[{"@context":"https://schema.org","@type":"Reservation","reservationStatus":"https://schema.org/ReservationConfirmed"},["seat 7","seat 8"]]`, "Booking confirmed"},
		{"book_plain", `[]`, "Booked"},
	}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
		defer cancel()
		for _, tc := range cases {
			if m == native {
				if got := browserFormAnswer(t, b, tc.tool); !sameJSON(got, []byte(tc.want)) {
					t.Fatalf("the browser's own agent got %s from %s, want %s", got, tc.tool, tc.want)
				}
			}
			_, closeTab := b.open(parityURL(t, "/booking.html"))
			b.waitTool(tc.tool)
			res := b.call(ctx, tc.tool, map[string]any{"show": "8:00 PM"})
			if res.IsError || len(res.Content) != 2 {
				t.Fatalf("%s through the bridge = %q (isError %v), want the next document's data, then where the tab went", tc.tool, text(res), res.IsError)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; !sameJSON([]byte(got), []byte(tc.want)) {
				t.Errorf("%s through the bridge answered %s, want %s, as the browser's own agent", tc.tool, got, tc.want)
			}
			where := res.Content[1].(*mcp.TextContent).Text
			if !strings.HasPrefix(where, "Tool "+tc.tool+" ran and navigated its tab to ") || !strings.Contains(where, `("`+tc.title+`"), which offers no tools.`) {
				t.Errorf("%s: where the tab went = %q", tc.tool, where)
			}
			closeTab()
		}
	})
}

// browserFormAnswer is what the browser's own agent (CDP) gets from the
// form tool of booking.html, in a tab of its own of a Chromium without the
// extension (plainChromium, started once per test): the browser alone is
// the reference, and a call there that Chromium 156 leaves unanswered or a
// crash of it (seen on a busy machine: its answer comes from the next
// document) cannot take the bridge's browser down with it. A call without
// an answer is made once more, in a new tab.
func browserFormAnswer(t *testing.T, b *bridge, tool string) []byte {
	t.Helper()
	if b.reference == nil {
		b.reference = plainChromium(t, native)
	}
	for try := 1; ; try++ {
		tab, closeTab := chromedp.NewContext(b.reference)
		if err := chromedp.Do(tab, chromedp.Navigate(parityURL(t, "/booking.html"))); err != nil {
			t.Fatalf("open booking.html without the extension: %v", err)
		}
		cdpt, err := newCDPTools(tab)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second) // a hang guard
		e, err := cdpt.invoke(ctx, tool, []byte(`{"show":"8:00 PM"}`))
		cancel()
		closeTab()
		if err == nil {
			return e.Output
		}
		if try == 2 {
			t.Fatalf("the browser's own agent: %v", err)
		}
		t.Logf("the browser's own agent: %v; once more", err)
		b.reference = plainChromium(t, native) // a new browser, in case that one went down
	}
}

// open_page of a page without tools answers once the page has loaded: its
// top frame's relay says that the loaded document's tools are all
// reported (none), and the agent gets the page with no tools. (How long
// it takes is BenchmarkOpenPageWithoutTools's.)
func TestOpenPageWithoutTools(t *testing.T) {
	b := start(t, native)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	res := b.call(ctx, "open_page", map[string]any{"url": parityURL(t, "/notools.html")})
	var op openedPage
	if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil {
		t.Fatalf("open_page = %s", text(res))
	}
	if op.TabID <= 0 || !strings.HasSuffix(op.URL, "/notools.html") || len(op.Tools) != 0 {
		t.Errorf("open_page = %+v, want the new tab without tools", op)
	}
}

// BenchmarkOpenPageWithoutTools: open_page of a small page without tools
// on loopback, and close_tab (the issue saw 2.1 s: a fixed wait for tools).
func BenchmarkOpenPageWithoutTools(bm *testing.B) {
	b := start(bm, native)
	ctx := context.Background()
	url := parityURL(bm, "/notools.html")
	bm.ResetTimer()
	for range bm.N {
		res := b.call(ctx, "open_page", map[string]any{"url": url})
		var op openedPage
		if err := json.Unmarshal([]byte(text(res)), &op); res.IsError || err != nil {
			bm.Fatalf("open_page = %s", text(res))
		}
		bm.StopTimer()
		b.call(ctx, "close_tab", map[string]any{"tabId": op.TabID})
		bm.StartTimer()
	}
}

// sameValue reports whether a and b are JSON texts of the same value
// (objects' keys in any order).
func sameValue(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// What the agent reads is what the page said, in both modes (issue SEC2
// item 9): hints the page left unset stay unset (a tool without any has
// no annotations), those it set arrive in MCP's words, its title whether
// it gave it as the tool's or, as @mcp-b/react-webmcp does, in
// annotations; and a tool that answers JSON text answers the agent what it
// answers the browser's own agent (CDP's WebMCP.invokeTool, in a Chromium
// without the extension): that JSON value, structured.
func TestAgentReadsWhatThePageSaid(t *testing.T) {
	url := parityURL(t, "/said.html")
	ref, err := newCDPTools(plainBrowser(t, native, url))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard
	defer cancel()
	browserSays := map[string][]byte{}
	for _, which := range []string{"json", "words"} {
		e, err := ref.invoke(ctx, "json_text", []byte(`{"which":"`+which+`"}`))
		if err != nil {
			t.Fatalf("the browser's own agent: %v", err)
		}
		browserSays[which] = e.Output
	}
	if !sameJSON(browserSays["json"], []byte(`{"total":3,"items":["tea","cake"]}`)) || !sameJSON(browserSays["words"], []byte(`"plain words"`)) {
		t.Fatalf("the browser's own agent got %s and %s", browserSays["json"], browserSays["words"])
	}
	forEachMode(t, func(t *testing.T, m mode) {
		b := start(t, m)
		b.open(url)
		tools := b.waitTools("the page's tools", func(m map[string]*mcp.Tool) bool {
			return m["bare"] != nil && m["cart_context"] != nil && m["titled"] != nil && m["json_text"] != nil
		})
		if a := tools["bare"].Annotations; a != nil {
			t.Errorf("bare: annotations %+v, want none: the page set none", *a)
		}
		no := false
		cart := tools["cart_context"]
		want := mcp.ToolAnnotations{Title: "Context: cart", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
		if a := cart.Annotations; a == nil || !reflect.DeepEqual(*a, want) {
			t.Errorf("cart_context: annotations %s, want %s, as the page declared them", mustJSON(a), mustJSON(want))
		}
		if cart.Title != "Context: cart" || !strings.Contains(cart.Description, "[READ-ONLY]") {
			t.Errorf("cart_context: title %q, description %q: want the page's title and the read-only label", cart.Title, cart.Description)
		}
		titled := tools["titled"]
		want = mcp.ToolAnnotations{Title: "Renames the list", IdempotentHint: true}
		if a := titled.Annotations; titled.Title != "Renames the list" || a == nil || !reflect.DeepEqual(*a, want) {
			t.Errorf("titled: title %q, annotations %s, want %s", titled.Title, mustJSON(a), mustJSON(want))
		}
		res := b.call(ctx, "json_text", map[string]any{"which": "json"})
		got, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !sameValue([]byte(text(res)), browserSays["json"]) || !sameValue(got, browserSays["json"]) {
			t.Errorf("json_text(json) = %q, structured %s (isError %v); want %s, structured, as the browser's own agent gets it", text(res), got, res.IsError, browserSays["json"])
		}
		res = b.call(ctx, "json_text", map[string]any{"which": "words"})
		if res.IsError || text(res) != "plain words" || res.StructuredContent != nil {
			t.Errorf("json_text(words) = %q, structured %v (isError %v); want the words alone", text(res), res.StructuredContent, res.IsError)
		}
	})
}
