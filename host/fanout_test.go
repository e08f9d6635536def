package host

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

// TestStateLines: a state over the limit goes to a shim as the state
// without tools and toolsAdded lines of at most a quarter of the limit,
// which, applied in order, give the whole state; a small one is one line.
func TestStateLines(t *testing.T) {
	snap := &protocol.Snapshot{Tabs: []protocol.Tab{}, Tools: []protocol.Tool{}}
	for id := 1; id <= 5; id++ {
		snap.Tabs = append(snap.Tabs, protocol.Tab{ID: id, URL: fmt.Sprintf("http://localhost/%d", id), Origin: "http://localhost", Allowed: true})
		for i := range 8 {
			snap.Tools = append(snap.Tools, protocol.Tool{TabID: id, Name: fmt.Sprintf("big%d", i), Description: strings.Repeat("x", 1000)})
		}
	}
	const max = 32 << 10 // the state is about 40 KiB
	lines := stateLines(snap, max)
	if len(lines) < 3 {
		t.Fatalf("%d lines, want the state and at least two toolsAdded", len(lines))
	}
	var st protocol.State
	for i, l := range lines {
		var m protocol.Message
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case i == 0 && (m.Type != protocol.TypeState || len(m.State.Tools) != 0 || len(m.State.Tabs) != 5):
			t.Errorf("the first line is not the state without tools: %.200s", l)
		case i > 0 && m.Type != protocol.TypeToolsAdded:
			t.Errorf("line %d is a %s, want toolsAdded", i, m.Type)
		case i > 0 && len(l) > max/4+1100: // a quarter of max, and one more tool at most
			t.Errorf("line %d has %d bytes", i, len(l))
		}
		st.Apply(&m)
	}
	if got := st.Snapshot(); !reflect.DeepEqual(got.Tools, snap.Tools) || !reflect.DeepEqual(got.Tabs, snap.Tabs) {
		t.Errorf("applied in order, the lines give %d tabs and %d tools, want the %d and %d of the state", len(got.Tabs), len(got.Tools), len(snap.Tabs), len(snap.Tools))
	}
	if n := len(stateLines(snap, 1<<20)); n != 1 {
		t.Errorf("a state under the limit: %d lines, want 1", n)
	}
}
