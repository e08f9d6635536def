package protocol_test

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

func tab(id int, title string) protocol.Tab {
	return protocol.Tab{ID: id, WindowID: 1, URL: "http://localhost/" + title, Title: title, Origin: "http://localhost", Allowed: true}
}

func tool(tabID, frameID int, name string) protocol.Tool {
	return protocol.Tool{TabID: tabID, FrameID: frameID, Origin: "http://localhost", Name: name, Description: "does " + name}
}

func ctxOf(tabID int, summary string) protocol.Context {
	return protocol.Context{TabID: tabID, Providers: []protocol.ProviderSnapshot{{ID: "p", Summary: summary, Data: json.RawMessage(`{"s":1}`)}}}
}

// snap builds the snapshot that State.Snapshot should return.
func snap(tabs []protocol.Tab, tools []protocol.Tool, contexts []protocol.Context) *protocol.Snapshot {
	if tabs == nil {
		tabs = []protocol.Tab{}
	}
	if tools == nil {
		tools = []protocol.Tool{}
	}
	return &protocol.Snapshot{Tabs: tabs, Tools: tools, Contexts: contexts}
}

func checkSnapshot(t *testing.T, s *protocol.State, want *protocol.Snapshot) {
	t.Helper()
	got := s.Snapshot()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("snapshot\n got %s\nwant %s", g, w)
	}
}

func TestZeroState(t *testing.T) {
	var s protocol.State
	checkSnapshot(t, &s, snap(nil, nil, nil))
	if _, ok := s.Tool(protocol.ToolRef{TabID: 1, Name: "x"}); ok {
		t.Error("the zero state has a tool")
	}
}

func TestApplyState(t *testing.T) {
	var s protocol.State
	s.Apply(&protocol.Message{Type: protocol.TypeState, State: snap(
		[]protocol.Tab{tab(9, "nine")}, []protocol.Tool{tool(9, 0, "old")}, []protocol.Context{ctxOf(9, "old")})})
	// A state replaces everything, and the snapshot comes out sorted.
	if !s.Apply(&protocol.Message{Type: protocol.TypeState, State: snap(
		[]protocol.Tab{tab(2, "two"), tab(1, "one")},
		[]protocol.Tool{tool(2, 0, "b"), tool(1, 3, "a"), tool(1, 0, "z"), tool(1, 0, "a")},
		[]protocol.Context{ctxOf(2, "two"), ctxOf(1, "one")})}) {
		t.Error("Apply(state) = false")
	}
	checkSnapshot(t, &s, snap(
		[]protocol.Tab{tab(1, "one"), tab(2, "two")},
		[]protocol.Tool{tool(1, 0, "a"), tool(1, 0, "z"), tool(1, 3, "a"), tool(2, 0, "b")},
		[]protocol.Context{ctxOf(1, "one"), ctxOf(2, "two")}))
	// A state message without a state empties it.
	s.Apply(&protocol.Message{Type: protocol.TypeState})
	checkSnapshot(t, &s, snap(nil, nil, nil))
}

func TestApplyTabUpdated(t *testing.T) {
	var s protocol.State
	one, two := tab(1, "one"), tab(2, "two")
	one.Focused = true
	s.Apply(&protocol.Message{Type: protocol.TypeState, State: snap([]protocol.Tab{one, two}, nil, nil)})

	// Replace one tab; add another, which takes the focus.
	two.Title = "two again"
	if !s.Apply(&protocol.Message{Type: protocol.TypeTabUpdated, Tab: &two}) {
		t.Error("Apply(tabUpdated) = false")
	}
	three := tab(3, "three")
	three.Focused = true
	s.Apply(&protocol.Message{Type: protocol.TypeTabUpdated, Tab: &three})
	one.Focused = false
	checkSnapshot(t, &s, snap([]protocol.Tab{one, two, three}, nil, nil))

	// Without a tab it changes nothing.
	s.Apply(&protocol.Message{Type: protocol.TypeTabUpdated})
	checkSnapshot(t, &s, snap([]protocol.Tab{one, two, three}, nil, nil))
}

func TestApplyTabRemoved(t *testing.T) {
	var s protocol.State
	s.Apply(&protocol.Message{Type: protocol.TypeState, State: snap(
		[]protocol.Tab{tab(1, "one"), tab(2, "two")},
		[]protocol.Tool{tool(1, 0, "a"), tool(1, 5, "b"), tool(2, 0, "a")},
		[]protocol.Context{ctxOf(1, "one"), ctxOf(2, "two")})})
	// The tab, its tools (of every frame) and its context go.
	if !s.Apply(&protocol.Message{Type: protocol.TypeTabRemoved, TabID: 1}) {
		t.Error("Apply(tabRemoved) = false")
	}
	checkSnapshot(t, &s, snap([]protocol.Tab{tab(2, "two")}, []protocol.Tool{tool(2, 0, "a")}, []protocol.Context{ctxOf(2, "two")}))
	// An unknown tab is no error.
	s.Apply(&protocol.Message{Type: protocol.TypeTabRemoved, TabID: 42})
	checkSnapshot(t, &s, snap([]protocol.Tab{tab(2, "two")}, []protocol.Tool{tool(2, 0, "a")}, []protocol.Context{ctxOf(2, "two")}))
}

func TestApplyTools(t *testing.T) {
	var s protocol.State
	a, b := tool(1, 0, "a"), tool(1, 0, "b")
	if !s.Apply(&protocol.Message{Type: protocol.TypeToolsAdded, Tools: []protocol.Tool{b, a}}) {
		t.Error("Apply(toolsAdded) = false")
	}
	// The key is (tab, frame, name): the same name in another frame is
	// another tool, and adding a known key replaces the tool.
	a2 := a
	a2.Description = "new"
	af := tool(1, 2, "a")
	s.Apply(&protocol.Message{Type: protocol.TypeToolsAdded, Tools: []protocol.Tool{a2, af}})
	checkSnapshot(t, &s, snap(nil, []protocol.Tool{a2, b, af}, nil))
	if got, ok := s.Tool(a.Ref()); !ok || got.Description != "new" {
		t.Errorf("Tool(%v) = %+v, %v", a.Ref(), got, ok)
	}

	if !s.Apply(&protocol.Message{Type: protocol.TypeToolsRemoved, Removed: []protocol.ToolRef{a.Ref(), {TabID: 7, Name: "unknown"}}}) {
		t.Error("Apply(toolsRemoved) = false")
	}
	checkSnapshot(t, &s, snap(nil, []protocol.Tool{b, af}, nil))
	if _, ok := s.Tool(a.Ref()); ok {
		t.Errorf("Tool(%v) still there", a.Ref())
	}
}

func TestApplyContext(t *testing.T) {
	var s protocol.State
	if !s.Apply(&protocol.Message{Type: protocol.TypeContext, Context: &protocol.Context{TabID: 1, Time: 5}}) {
		t.Error("Apply(context) = false")
	}
	c := ctxOf(1, "newer")
	s.Apply(&protocol.Message{Type: protocol.TypeContext, Context: &c})
	s.Apply(&protocol.Message{Type: protocol.TypeContext}) // nothing
	checkSnapshot(t, &s, snap(nil, nil, []protocol.Context{c}))
}

func TestApplyIgnoresOtherMessages(t *testing.T) {
	var s protocol.State
	s.Apply(&protocol.Message{Type: protocol.TypeState, State: snap([]protocol.Tab{tab(1, "one")}, nil, nil)})
	for _, typ := range []string{protocol.TypeHello, protocol.TypeCall, protocol.TypeRequest, protocol.TypeCancel, protocol.TypeResult, protocol.TypeError, protocol.TypeChunk, "unknown", ""} {
		// Fields that a change would use are set, and still ignored.
		if s.Apply(&protocol.Message{Type: typ, TabID: 1, Tab: &protocol.Tab{ID: 2}, Tools: []protocol.Tool{tool(1, 0, "x")}}) {
			t.Errorf("Apply(%q) = true", typ)
		}
	}
	checkSnapshot(t, &s, snap([]protocol.Tab{tab(1, "one")}, nil, nil))
}

func TestStateConcurrentUse(t *testing.T) {
	var s protocol.State
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				tb := tab(g*1000+i, "t")
				s.Apply(&protocol.Message{Type: protocol.TypeTabUpdated, Tab: &tb})
				s.Apply(&protocol.Message{Type: protocol.TypeToolsAdded, Tools: []protocol.Tool{tool(tb.ID, 0, "x")}})
				s.Snapshot()
				s.Tool(protocol.ToolRef{TabID: tb.ID, Name: "x"})
			}
		}()
	}
	wg.Wait()
	if got := s.Snapshot(); len(got.Tabs) != 800 || len(got.Tools) != 800 {
		t.Errorf("%d tabs and %d tools, want 800 of each", len(got.Tabs), len(got.Tools))
	}
}

func TestCompareRefs(t *testing.T) {
	refs := []protocol.ToolRef{{1, 0, "a"}, {1, 0, "b"}, {1, 1, "a"}, {2, 0, "a"}}
	for i, a := range refs {
		for j, b := range refs {
			got := protocol.CompareRefs(a, b)
			if (i < j && got >= 0) || (i == j && got != 0) || (i > j && got <= 0) {
				t.Errorf("CompareRefs(%v, %v) = %d", a, b, got)
			}
		}
	}
}

func TestApplyPins(t *testing.T) {
	var s protocol.State
	pins := []protocol.Pin{{ProviderID: "trace.Timeline#selection", TabID: 1, Summary: "slice 3", PinnedAt: 7}}
	if !s.Apply(&protocol.Message{Type: protocol.TypePins, Pins: pins}) {
		t.Fatal("Apply(pins) = false")
	}
	// Pins outlive the tab they came from: they are frozen snapshots.
	s.Apply(&protocol.Message{Type: protocol.TypeTabRemoved, TabID: 1})
	if got := s.Snapshot().Pins; len(got) != 1 || got[0].Summary != "slice 3" {
		t.Errorf("pins after their tab closed = %+v", got)
	}
	s.Apply(&protocol.Message{Type: protocol.TypePins})
	if got := s.Snapshot().Pins; len(got) != 0 {
		t.Errorf("pins after an empty pins message = %+v", got)
	}
	// A full state carries the pins too.
	s.Apply(&protocol.Message{Type: protocol.TypeState, State: &protocol.Snapshot{Pins: pins}})
	if got := s.Snapshot().Pins; len(got) != 1 {
		t.Errorf("pins from a state message = %+v", got)
	}
}
