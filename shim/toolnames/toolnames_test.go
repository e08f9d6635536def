package toolnames

import (
	"fmt"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, tc := range []struct{ in, want string }{
		{"echo", "echo"},
		{"trace.select_slice", "trace_select_slice"},
		{"a b/c:d", "a_b_c_d"},
		{"Ünïcode", "_n_code"},
		{"日本", "__"},
		{"ok-name_9", "ok-name_9"},
		{"", Fallback},
		{long, long[:MaxLen]},
		{strings.Repeat("é", 70), strings.Repeat("_", MaxLen)},
	} {
		got := Sanitize(tc.in)
		if got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !Valid(got) {
			t.Errorf("Sanitize(%q) = %q is not Valid", tc.in, got)
		}
	}
}

func TestValid(t *testing.T) {
	for name, want := range map[string]bool{
		"echo":                      true,
		"a-b_C9":                    true,
		"":                          false,
		"a.b":                       false,
		"é":                         false,
		strings.Repeat("x", MaxLen): true,
		strings.Repeat("x", 65):     false,
	} {
		if got := Valid(name); got != want {
			t.Errorf("Valid(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRegistryClashAndStability(t *testing.T) {
	r := NewRegistry[int]("list_tabs")
	if got := r.Assign(1, "echo", ""); got != "echo" {
		t.Fatalf("first echo = %q", got)
	}
	if got := r.Assign(2, "echo", ""); got != "echo_2" {
		t.Fatalf("second echo = %q", got)
	}
	if got := r.Assign(3, "echo", ""); got != "echo_3" {
		t.Fatalf("third echo = %q", got)
	}
	// Stable: asking again gives the same name, whatever is wanted now.
	if got := r.Assign(2, "other", ""); got != "echo_2" {
		t.Fatalf("re-assign = %q, want echo_2", got)
	}
	// The second goes: the first keeps its name, the third keeps its suffix.
	if name, ok := r.Release(2); !ok || name != "echo_2" {
		t.Fatalf("Release(2) = %q, %v", name, ok)
	}
	if got, _ := r.Name(1); got != "echo" {
		t.Fatalf("first after release = %q", got)
	}
	if got, _ := r.Name(3); got != "echo_3" {
		t.Fatalf("third after release = %q", got)
	}
	// A freed suffix is reused by the next clash.
	if got := r.Assign(4, "echo", ""); got != "echo_2" {
		t.Fatalf("fourth echo = %q, want echo_2", got)
	}
	// The first goes: a new tool gets the plain name back.
	r.Release(1)
	if got := r.Assign(5, "echo", ""); got != "echo" {
		t.Fatalf("fifth echo = %q, want echo", got)
	}
	if key, ok := r.Lookup("echo_3"); !ok || key != 3 {
		t.Fatalf("Lookup(echo_3) = %v, %v", key, ok)
	}
	if _, ok := r.Release(99); ok {
		t.Fatal("Release of an unknown key reported ok")
	}
	if r.Len() != 3 {
		t.Fatalf("Len = %d, want 3", r.Len())
	}
}

func TestRegistryReserved(t *testing.T) {
	r := NewRegistry[string]("list_tabs", "open_page")
	if got := r.Assign("a", "list_tabs", ""); got != "list_tabs_2" {
		t.Fatalf("page list_tabs = %q, want list_tabs_2", got)
	}
	// Names a client could take for the bridge's own get a suffix too.
	for key, name := range map[string]string{"b": "List_Tabs", "c": "OPEN-PAGE", "d": "open-page"} {
		if got := r.Assign(key, name, ""); got == name || !strings.HasSuffix(got, "_2") && !strings.HasSuffix(got, "_3") {
			t.Errorf("page %s = %q, want it with a suffix", name, got)
		}
	}
	if got := r.Assign("e", "list_tabs_all", ""); got != "list_tabs_all" {
		t.Errorf("page list_tabs_all = %q: only the bridge's own names are kept", got)
	}
}

func TestRegistrySuffixFitsMaxLen(t *testing.T) {
	r := NewRegistry[int]()
	long := strings.Repeat("n", 80)
	first := r.Assign(1, long, "")
	second := r.Assign(2, long, "")
	if first != long[:MaxLen] {
		t.Fatalf("first = %q", first)
	}
	if len(second) != MaxLen || !strings.HasSuffix(second, "_2") || !Valid(second) {
		t.Fatalf("second = %q (len %d)", second, len(second))
	}
	for i := 3; i <= 12; i++ {
		n := r.Assign(i, long, "")
		if len(n) > MaxLen || !Valid(n) {
			t.Fatalf("name %d = %q", i, n)
		}
	}
	if got, _ := r.Name(12); !strings.HasSuffix(got, "_12") {
		t.Fatalf("twelfth = %q", got)
	}
}

func TestRegistrySanitizedCollision(t *testing.T) {
	// Two page names that sanitize to the same name clash too.
	r := NewRegistry[int]()
	a := r.Assign(1, "a.b", "")
	b := r.Assign(2, "a_b", "")
	if a != "a_b" || b != "a_b_2" {
		t.Fatalf("got %q, %q", a, b)
	}
}

func ExampleRegistry() {
	r := NewRegistry[string]("list_tabs")
	fmt.Println(r.Assign("tab 12: echo", "echo", ""))
	fmt.Println(r.Assign("tab 13: echo", "echo", ""))
	fmt.Println(r.Assign("tab 12: trace.select", "trace.select", ""))
	r.Release("tab 13: echo")
	fmt.Println(r.Assign("tab 14: echo", "echo", ""))
	fmt.Println(r.Assign("tab 14: list_tabs", "list_tabs", ""))
	// Output:
	// echo
	// echo_2
	// trace_select
	// echo_2
	// list_tabs_2
}

func ExampleSanitize() {
	fmt.Println(Sanitize("perfetto.select slice"))
	// Output: perfetto_select_slice
}

func TestRetire(t *testing.T) {
	r := NewRegistry[string]()
	if got := r.Assign("c", "dup", ""); got != "dup" {
		t.Fatalf("c: %s", got)
	}
	if got := r.Assign("b", "dup", ""); got != "dup_2" {
		t.Fatalf("b: %s", got)
	}
	r.Retire("c")
	r.Retire("b")
	if !r.Retired("c") || r.Len() != 2 {
		t.Fatalf("retired c: %v, len %d", r.Retired("c"), r.Len())
	}
	// A new key never gets a retired name; a returning key gets its own.
	if got := r.Assign("d", "dup", ""); got != "dup_3" {
		t.Errorf("a new key got %s, want dup_3", got)
	}
	if got := r.Assign("b", "dup", ""); got != "dup_2" || r.Retired("b") {
		t.Errorf("b came back as %s (retired %v), want dup_2", got, r.Retired("b"))
	}
	if got := r.Assign("c", "dup", ""); got != "dup" {
		t.Errorf("c came back as %s, want dup", got)
	}
	// Retiring a key without a name does nothing.
	r.Retire("nobody")
	if r.Retired("nobody") {
		t.Error("a key without a name was retired")
	}
}

func TestRetiredAreBounded(t *testing.T) {
	r := NewRegistry[int]()
	for i := range MaxRetired + 10 {
		r.Assign(i, "t", "")
		r.Retire(i)
	}
	if r.Len() != MaxRetired {
		t.Fatalf("%d names held, want MaxRetired (%d)", r.Len(), MaxRetired)
	}
	if r.Retired(0) || !r.Retired(MaxRetired+9) {
		t.Error("not the oldest retired names were released")
	}
	if _, ok := r.Name(0); ok {
		t.Error("the oldest retired key still holds its name")
	}
}

func TestNamesComeBackToTheirClass(t *testing.T) {
	const app, other = "http://127.0.0.1:8765\nfind_slices", "https://evil.example\nfind_slices"
	r := NewRegistry[string]()
	// The app in one tab, then navigated away (its tool goes) and back.
	if got := r.Assign("tab 1", "find_slices", app); got != "find_slices" {
		t.Fatalf("first = %q", got)
	}
	r.Release("tab 1")
	if got := r.Assign("tab 1 again", "find_slices", app); got != "find_slices" {
		t.Fatalf("the same app after it went = %q, want find_slices", got)
	}
	// Closed and reopened in another tab, three times: always the plain name.
	for i := range 3 {
		r.Release("tab 1 again")
		if got := r.Assign("tab 1 again", "find_slices", app); got != "find_slices" {
			t.Fatalf("reopen %d = %q, want find_slices", i, got)
		}
	}
	// Another site's tool of the same name never gets the app's name, held
	// or not.
	if got := r.Assign("tab 2", "find_slices", other); got != "find_slices_2" {
		t.Fatalf("another site while the app is open = %q, want find_slices_2", got)
	}
	r.Release("tab 1 again")
	r.Release("tab 2")
	if got := r.Assign("tab 3", "find_slices", other); got != "find_slices_2" {
		t.Fatalf("another site after the app went = %q, want find_slices_2 (its own)", got)
	}
	if got := r.Assign("tab 4", "find_slices", app); got != "find_slices" {
		t.Fatalf("the app after the other site came = %q, want find_slices", got)
	}
	// Two tabs of the app: the second has the suffix while the first lives;
	// the first goes and the second keeps its name (a name never moves);
	// a reopened first gets the plain name back.
	if got := r.Assign("tab 5", "find_slices", app); got != "find_slices_3" {
		t.Fatalf("second tab of the app = %q, want find_slices_3", got)
	}
	r.Release("tab 4")
	if got, _ := r.Name("tab 5"); got != "find_slices_3" {
		t.Fatalf("second tab after the first went = %q", got)
	}
	if got := r.Assign("tab 6", "find_slices", app); got != "find_slices" {
		t.Fatalf("first tab reopened = %q, want find_slices", got)
	}
}

func TestNameGivenUpWhenClassChanges(t *testing.T) {
	r := NewRegistry[string]()
	r.Assign("tab 1 frame 0 echo", "echo", "http://a.test\necho")
	// The same tab, frame and tool name, now of another site: a new name.
	if got := r.Assign("tab 1 frame 0 echo", "echo", "http://b.test\necho"); got != "echo_2" {
		t.Fatalf("after a cross-site navigation = %q, want echo_2", got)
	}
	if got := r.Assign("tab 2 frame 0 echo", "echo", "http://a.test\necho"); got != "echo" {
		t.Fatalf("the first site again = %q, want echo", got)
	}
}

func TestRetiredNameIsNotGivenToItsClass(t *testing.T) {
	r := NewRegistry[string]()
	r.Assign("k", "echo", "c")
	r.Retire("k")
	if got := r.Assign("k2", "echo", "c"); got != "echo_2" {
		t.Fatalf("a retired key's name went to %q", got)
	}
}

func TestRememberedNamesAreBounded(t *testing.T) {
	r := NewRegistry[int]()
	for i := range MaxRemembered + 10 {
		r.Assign(i, fmt.Sprint("t", i), "a")
		r.Release(i)
	}
	if len(r.classOf) > MaxRemembered || len(r.remembered) != len(r.classOf) {
		t.Fatalf("remembered %d names (%d in order), want at most %d", len(r.classOf), len(r.remembered), MaxRemembered)
	}
	// The oldest names are forgotten: another class may have t0.
	if got := r.Assign(-1, "t0", "b"); got != "t0" {
		t.Fatalf("a forgotten name = %q, want t0", got)
	}
}
