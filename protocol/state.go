package protocol

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
	// tools and context of a tab that is not allowed never leave the browser,
	// nor do its URL and title (they are empty; Origin says which site).
	Allowed bool `json:"allowed"`
	// Focused marks the active tab of the last focused browser window, the
	// tab the user is looking at. Always written, like Active.
	Focused bool `json:"focused"`
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
	// OutputSchema (optional) is the JSON Schema object that the tool's
	// results follow, as the page declared it (WebMCP's outputSchema
	// proposal); absent means the page said nothing.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
	// Changed is set on a tool whose page changed its definition (title,
	// description, schemas, annotations) since the browser first saw it
	// on its site, or since the user last accepted it: a tool approved as
	// one thing may now do another. Agents see it marked [CHANGED].
	Changed bool `json:"changed,omitempty"`
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
	// ConsequentialHint: running the tool has real-world consequences the
	// user may not be able to take back (booking, paying, sending).
	ConsequentialHint *bool `json:"consequentialHint,omitempty"`
	// Debugging: the page meant the tool for debugging, not for everyday
	// agents; the shim lists it only when the user asks for such tools.
	Debugging *bool `json:"debugging,omitempty"`
}

// ToolRef names one tool of one frame of one tab.
type ToolRef struct {
	TabID   int    `json:"tabId"`
	FrameID int    `json:"frameId"`
	Name    string `json:"name"`
}

// Context is the UI context of one tab: what the user is looking at. The
// extension sends it only for tabs whose site the user allowed.
type Context struct {
	TabID int    `json:"tabId"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Providers are the page's context providers' latest snapshots, in
	// registration order; a provider that had nothing to say is absent.
	Providers []ProviderSnapshot `json:"providers,omitempty"`
	// Ambient is what the bridge sees without the page's help.
	Ambient *Ambient `json:"ambient,omitempty"`
	// Time is when the context was sampled, in Unix milliseconds.
	Time int64 `json:"time,omitempty"`
}

// ProviderSnapshot is what one context provider returned, or why it was left
// out.
type ProviderSnapshot struct {
	ID          string          `json:"id"`
	Description string          `json:"description,omitempty"` // invariant; said once
	Summary     string          `json:"summary,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	// Note says why the provider was left out (it threw, or was too slow);
	// Summary and Data are then empty.
	Note string `json:"note,omitempty"`
	// Stale says why Summary and Data are not fresh: a page tool sampled as
	// context that did not answer in time gives its last answer with it.
	Stale string `json:"stale,omitempty"`
}

// Ambient is the context every allowed page has: its text selection and its
// focused element.
type Ambient struct {
	Selection string `json:"selection,omitempty"` // the selected text, cut to a few hundred characters
	// SelectionCut is set when Selection was cut.
	SelectionCut bool     `json:"selectionCut,omitempty"`
	Focused      *Element `json:"focused,omitempty"`
}

// Element describes a focused element by its role and accessible name.
type Element struct {
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	Tag  string `json:"tag,omitempty"`
}

// Pin is a frozen snapshot of one provider, kept until unpinned. Ids in it
// stay valid, but the view may have moved on since.
type Pin struct {
	ProviderID  string          `json:"providerId"`
	Description string          `json:"description,omitempty"`
	Summary     string          `json:"summary,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
	TabID       int             `json:"tabId"`
	URL         string          `json:"url,omitempty"`
	Title       string          `json:"title,omitempty"`
	PinnedAt    int64           `json:"pinnedAt"` // Unix milliseconds
}

// State is everything a host knows about its browser. The zero value is an
// empty state, ready to use; it is safe for concurrent use.
type State struct {
	mu       sync.Mutex
	tabs     map[int]Tab
	tools    map[ToolRef]Tool
	contexts map[int]Context
	pins     []Pin
}

// Snapshot is a State as it travels in a "state" message.
type Snapshot struct {
	Tabs     []Tab     `json:"tabs"`
	Tools    []Tool    `json:"tools"`
	Contexts []Context `json:"contexts,omitempty"`
	Pins     []Pin     `json:"pins,omitempty"`
}

// Apply changes s by one message: state replaces everything; tabUpdated,
// tabRemoved, toolsAdded, toolsRemoved, context and pins change a part. It reports
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
		s.pins = nil
		if m.State != nil {
			s.pins = slices.Clone(m.State.Pins)
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
	case TypePins:
		s.pins = slices.Clone(m.Pins)
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
	snap.Pins = slices.Clone(s.pins)
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
