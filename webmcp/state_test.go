package webmcp_test

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/webmcp-bridge/bridge/webmcp"
)

func tab(id int, title string) webmcp.Tab {
	return webmcp.Tab{ID: id, WindowID: 1, URL: "http://localhost/" + title, Title: title, Origin: "http://localhost", Allowed: true}
}

func tool(tabID, frameID int, name string) webmcp.Tool {
	return webmcp.Tool{TabID: tabID, FrameID: frameID, Origin: "http://localhost", Name: name, Description: "does " + name}
}

func ctxOf(tabID int, summary string) webmcp.Context {
	return webmcp.Context{TabID: tabID, Providers: []webmcp.ProviderSnapshot{{ID: "p", Summary: summary, Data: json.RawMessage(`{"s":1}`)}}}
}

// snap builds the snapshot that State.Snapshot should return.
func snap(tabs []webmcp.Tab, tools []webmcp.Tool, contexts []webmcp.Context) *webmcp.Snapshot {
	if tabs == nil {
		tabs = []webmcp.Tab{}
	}
	if tools == nil {
		tools = []webmcp.Tool{}
	}
	return &webmcp.Snapshot{Tabs: tabs, Tools: tools, Contexts: contexts}
}

func checkSnapshot(t *testing.T, s *webmcp.State, want *webmcp.Snapshot) {
	t.Helper()
	got := s.Snapshot()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("snapshot\n got %s\nwant %s", g, w)
	}
}

func TestZeroState(t *testing.T) {
	var s webmcp.State
	checkSnapshot(t, &s, snap(nil, nil, nil))
	if _, ok := s.Tool(webmcp.ToolRef{TabID: 1, Name: "x"}); ok {
		t.Error("the zero state has a tool")
	}
}

func TestApplyState(t *testing.T) {
	var s webmcp.State
	s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: snap(
		[]webmcp.Tab{tab(9, "nine")}, []webmcp.Tool{tool(9, 0, "old")}, []webmcp.Context{ctxOf(9, "old")})})
	// A state replaces everything, and the snapshot comes out sorted.
	if !s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: snap(
		[]webmcp.Tab{tab(2, "two"), tab(1, "one")},
		[]webmcp.Tool{tool(2, 0, "b"), tool(1, 3, "a"), tool(1, 0, "z"), tool(1, 0, "a")},
		[]webmcp.Context{ctxOf(2, "two"), ctxOf(1, "one")})}) {
		t.Error("Apply(state) = false")
	}
	checkSnapshot(t, &s, snap(
		[]webmcp.Tab{tab(1, "one"), tab(2, "two")},
		[]webmcp.Tool{tool(1, 0, "a"), tool(1, 0, "z"), tool(1, 3, "a"), tool(2, 0, "b")},
		[]webmcp.Context{ctxOf(1, "one"), ctxOf(2, "two")}))
	// A state message without a state empties it.
	s.Apply(&webmcp.Message{Type: webmcp.TypeState})
	checkSnapshot(t, &s, snap(nil, nil, nil))
}

func TestApplyTabUpdated(t *testing.T) {
	var s webmcp.State
	one, two := tab(1, "one"), tab(2, "two")
	one.Focused = true
	s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: snap([]webmcp.Tab{one, two}, nil, nil)})

	// Replace one tab; add another, which takes the focus.
	two.Title = "two again"
	if !s.Apply(&webmcp.Message{Type: webmcp.TypeTabUpdated, Tab: &two}) {
		t.Error("Apply(tabUpdated) = false")
	}
	three := tab(3, "three")
	three.Focused = true
	s.Apply(&webmcp.Message{Type: webmcp.TypeTabUpdated, Tab: &three})
	one.Focused = false
	checkSnapshot(t, &s, snap([]webmcp.Tab{one, two, three}, nil, nil))

	// Without a tab it changes nothing.
	s.Apply(&webmcp.Message{Type: webmcp.TypeTabUpdated})
	checkSnapshot(t, &s, snap([]webmcp.Tab{one, two, three}, nil, nil))
}

func TestApplyTabRemoved(t *testing.T) {
	var s webmcp.State
	s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: snap(
		[]webmcp.Tab{tab(1, "one"), tab(2, "two")},
		[]webmcp.Tool{tool(1, 0, "a"), tool(1, 5, "b"), tool(2, 0, "a")},
		[]webmcp.Context{ctxOf(1, "one"), ctxOf(2, "two")})})
	// The tab, its tools (of every frame) and its context go.
	if !s.Apply(&webmcp.Message{Type: webmcp.TypeTabRemoved, TabID: 1}) {
		t.Error("Apply(tabRemoved) = false")
	}
	checkSnapshot(t, &s, snap([]webmcp.Tab{tab(2, "two")}, []webmcp.Tool{tool(2, 0, "a")}, []webmcp.Context{ctxOf(2, "two")}))
	// An unknown tab is no error.
	s.Apply(&webmcp.Message{Type: webmcp.TypeTabRemoved, TabID: 42})
	checkSnapshot(t, &s, snap([]webmcp.Tab{tab(2, "two")}, []webmcp.Tool{tool(2, 0, "a")}, []webmcp.Context{ctxOf(2, "two")}))
}

func TestApplyTools(t *testing.T) {
	var s webmcp.State
	a, b := tool(1, 0, "a"), tool(1, 0, "b")
	if !s.Apply(&webmcp.Message{Type: webmcp.TypeToolsAdded, Tools: []webmcp.Tool{b, a}}) {
		t.Error("Apply(toolsAdded) = false")
	}
	// The key is (tab, frame, name): the same name in another frame is
	// another tool, and adding a known key replaces the tool.
	a2 := a
	a2.Description = "new"
	af := tool(1, 2, "a")
	s.Apply(&webmcp.Message{Type: webmcp.TypeToolsAdded, Tools: []webmcp.Tool{a2, af}})
	checkSnapshot(t, &s, snap(nil, []webmcp.Tool{a2, b, af}, nil))
	if got, ok := s.Tool(a.Ref()); !ok || got.Description != "new" {
		t.Errorf("Tool(%v) = %+v, %v", a.Ref(), got, ok)
	}

	if !s.Apply(&webmcp.Message{Type: webmcp.TypeToolsRemoved, Removed: []webmcp.ToolRef{a.Ref(), {TabID: 7, Name: "unknown"}}}) {
		t.Error("Apply(toolsRemoved) = false")
	}
	checkSnapshot(t, &s, snap(nil, []webmcp.Tool{b, af}, nil))
	if _, ok := s.Tool(a.Ref()); ok {
		t.Errorf("Tool(%v) still there", a.Ref())
	}
}

func TestApplyContext(t *testing.T) {
	var s webmcp.State
	if !s.Apply(&webmcp.Message{Type: webmcp.TypeContext, Context: &webmcp.Context{TabID: 1, Time: 5}}) {
		t.Error("Apply(context) = false")
	}
	c := ctxOf(1, "newer")
	s.Apply(&webmcp.Message{Type: webmcp.TypeContext, Context: &c})
	s.Apply(&webmcp.Message{Type: webmcp.TypeContext}) // nothing
	checkSnapshot(t, &s, snap(nil, nil, []webmcp.Context{c}))
}

func TestApplyIgnoresOtherMessages(t *testing.T) {
	var s webmcp.State
	s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: snap([]webmcp.Tab{tab(1, "one")}, nil, nil)})
	for _, typ := range []string{webmcp.TypeHello, webmcp.TypeCall, webmcp.TypeRequest, webmcp.TypeCancel, webmcp.TypeResult, webmcp.TypeError, webmcp.TypeChunk, "unknown", ""} {
		// Fields that a change would use are set, and still ignored.
		if s.Apply(&webmcp.Message{Type: typ, TabID: 1, Tab: &webmcp.Tab{ID: 2}, Tools: []webmcp.Tool{tool(1, 0, "x")}}) {
			t.Errorf("Apply(%q) = true", typ)
		}
	}
	checkSnapshot(t, &s, snap([]webmcp.Tab{tab(1, "one")}, nil, nil))
}

func TestStateConcurrentUse(t *testing.T) {
	var s webmcp.State
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				tb := tab(g*1000+i, "t")
				s.Apply(&webmcp.Message{Type: webmcp.TypeTabUpdated, Tab: &tb})
				s.Apply(&webmcp.Message{Type: webmcp.TypeToolsAdded, Tools: []webmcp.Tool{tool(tb.ID, 0, "x")}})
				s.Snapshot()
				s.Tool(webmcp.ToolRef{TabID: tb.ID, Name: "x"})
			}
		}()
	}
	wg.Wait()
	if got := s.Snapshot(); len(got.Tabs) != 800 || len(got.Tools) != 800 {
		t.Errorf("%d tabs and %d tools, want 800 of each", len(got.Tabs), len(got.Tools))
	}
}

func TestCompareRefs(t *testing.T) {
	refs := []webmcp.ToolRef{{1, 0, "a"}, {1, 0, "b"}, {1, 1, "a"}, {2, 0, "a"}}
	for i, a := range refs {
		for j, b := range refs {
			got := webmcp.CompareRefs(a, b)
			if (i < j && got >= 0) || (i == j && got != 0) || (i > j && got <= 0) {
				t.Errorf("CompareRefs(%v, %v) = %d", a, b, got)
			}
		}
	}
}

func TestApplyPins(t *testing.T) {
	var s webmcp.State
	pins := []webmcp.Pin{{ProviderID: "trace.Timeline#selection", TabID: 1, Summary: "slice 3", PinnedAt: 7}}
	if !s.Apply(&webmcp.Message{Type: webmcp.TypePins, Pins: pins}) {
		t.Fatal("Apply(pins) = false")
	}
	// Pins outlive the tab they came from: they are frozen snapshots.
	s.Apply(&webmcp.Message{Type: webmcp.TypeTabRemoved, TabID: 1})
	if got := s.Snapshot().Pins; len(got) != 1 || got[0].Summary != "slice 3" {
		t.Errorf("pins after their tab closed = %+v", got)
	}
	s.Apply(&webmcp.Message{Type: webmcp.TypePins})
	if got := s.Snapshot().Pins; len(got) != 0 {
		t.Errorf("pins after an empty pins message = %+v", got)
	}
	// A full state carries the pins too.
	s.Apply(&webmcp.Message{Type: webmcp.TypeState, State: &webmcp.Snapshot{Pins: pins}})
	if got := s.Snapshot().Pins; len(got) != 1 {
		t.Errorf("pins from a state message = %+v", got)
	}
}
