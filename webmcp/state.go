package webmcp

import (
	"encoding/json"
	"slices"
	"sync"
)

// Tab is a browser tab whose pages the extension watches.
type Tab struct {
	ID       int    `json:"id"`
	WindowID int    `json:"windowId"`
	Active   bool   `json:"active"` // the selected tab of its window
	URL      string `json:"url"`
	Title    string `json:"title"`
	Origin   string `json:"origin"` // the top frame's origin, e.g. "http://localhost:8080"
	// Allowed reports whether the user allowed the top frame's site; the
	// tools and context of a tab that is not allowed never leave the browser.
	Allowed bool `json:"allowed"`
	// Focused marks the active tab of the last focused browser window, the
	// tab the user is looking at.
	Focused bool `json:"focused,omitempty"`
}

// Tool is a tool that a page registered through WebMCP.
type Tool struct {
	TabID       int             `json:"tabId"`
	FrameID     int             `json:"frameId"` // 0 is the tab's top frame
	Origin      string          `json:"origin"`  // the registering frame's origin
	Name        string          `json:"name"`    // the page's own name
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"` // a JSON Schema object; absent means any object
	Annotations *Annotations    `json:"annotations,omitempty"`
}

// Ref returns the key that identifies t.
func (t Tool) Ref() ToolRef { return ToolRef{TabID: t.TabID, FrameID: t.FrameID, Name: t.Name} }

// Annotations are a tool's hints, as the page gave them. A nil pointer means
// the page said nothing.
type Annotations struct {
	ReadOnlyHint         *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint      *bool `json:"destructiveHint,omitempty"`
	IdempotentHint       *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint        *bool `json:"openWorldHint,omitempty"`
	UntrustedContentHint *bool `json:"untrustedContentHint,omitempty"`
}

// ToolRef names one tool of one frame of one tab.
type ToolRef struct {
	TabID   int    `json:"tabId"`
	FrameID int    `json:"frameId"`
	Name    string `json:"name"`
}

// Context is the UI context of one tab: what the user is looking at.
type Context struct {
	TabID int `json:"tabId"`
	// Providers are the page's context providers' latest snapshots.
	Providers []ProviderSnapshot `json:"providers,omitempty"`
	// Time is when the context was sampled, in Unix milliseconds.
	Time int64 `json:"time,omitempty"`
}

// ProviderSnapshot is what one context provider returned.
type ProviderSnapshot struct {
	ID          string          `json:"id"`
	Description string          `json:"description,omitempty"` // invariant; said once
	Summary     string          `json:"summary,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	// Note says why the provider was left out (threw, too slow), if it was.
	Note string `json:"note,omitempty"`
}

// State is everything a host knows about its browser. The zero value is an
// empty state, ready to use; it is safe for concurrent use.
type State struct {
	mu       sync.Mutex
	tabs     map[int]Tab
	tools    map[ToolRef]Tool
	contexts map[int]Context
}

// Snapshot is a State as it travels in a "state" message.
type Snapshot struct {
	Tabs     []Tab     `json:"tabs"`
	Tools    []Tool    `json:"tools"`
	Contexts []Context `json:"contexts,omitempty"`
}

// Apply changes s by one message: state replaces everything; tabUpdated,
// tabRemoved, toolsAdded, toolsRemoved and context change a part. It reports
// whether the message was a state message or change; other messages are left
// alone.
func (s *State) Apply(m *Message) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tabs == nil {
		s.tabs = map[int]Tab{}
		s.tools = map[ToolRef]Tool{}
		s.contexts = map[int]Context{}
	}
	switch m.Type {
	case TypeState:
		clear(s.tabs)
		clear(s.tools)
		clear(s.contexts)
		if m.State != nil {
			for _, t := range m.State.Tabs {
				s.tabs[t.ID] = t
			}
			for _, t := range m.State.Tools {
				s.tools[t.Ref()] = t
			}
			for _, c := range m.State.Contexts {
				s.contexts[c.TabID] = c
			}
		}
	case TypeTabUpdated:
		if m.Tab != nil {
			if m.Tab.Focused {
				for id, t := range s.tabs {
					if t.Focused && id != m.Tab.ID {
						t.Focused = false
						s.tabs[id] = t
					}
				}
			}
			s.tabs[m.Tab.ID] = *m.Tab
		}
	case TypeTabRemoved:
		delete(s.tabs, m.TabID)
		delete(s.contexts, m.TabID)
		for ref := range s.tools {
			if ref.TabID == m.TabID {
				delete(s.tools, ref)
			}
		}
	case TypeToolsAdded:
		for _, t := range m.Tools {
			s.tools[t.Ref()] = t
		}
	case TypeToolsRemoved:
		for _, ref := range m.Removed {
			delete(s.tools, ref)
		}
	case TypeContext:
		if m.Context != nil {
			s.contexts[m.Context.TabID] = *m.Context
		}
	default:
		return false
	}
	return true
}

// Snapshot returns a copy of the state, tabs sorted by id and tools by tab,
// frame and name.
func (s *State) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{Tabs: []Tab{}, Tools: []Tool{}}
	for _, t := range s.tabs {
		snap.Tabs = append(snap.Tabs, t)
	}
	for _, t := range s.tools {
		snap.Tools = append(snap.Tools, t)
	}
	for _, c := range s.contexts {
		snap.Contexts = append(snap.Contexts, c)
	}
	slices.SortFunc(snap.Tabs, func(a, b Tab) int { return a.ID - b.ID })
	slices.SortFunc(snap.Tools, func(a, b Tool) int { return CompareRefs(a.Ref(), b.Ref()) })
	slices.SortFunc(snap.Contexts, func(a, b Context) int { return a.TabID - b.TabID })
	return snap
}

// Tool returns the tool that ref names, if there is one.
func (s *State) Tool(ref ToolRef) (Tool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[ref]
	return t, ok
}

// CompareRefs orders tool refs by tab, frame and name.
func CompareRefs(a, b ToolRef) int {
	if a.TabID != b.TabID {
		return a.TabID - b.TabID
	}
	if a.FrameID != b.FrameID {
		return a.FrameID - b.FrameID
	}
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}
