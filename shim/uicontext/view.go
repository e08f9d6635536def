package uicontext

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
)

// Notes of a View without a tab context.
const (
	NoteNoBrowser  = results.NoBrowser
	NoteNoFocus    = "no focused tab: the browser has not said which tab the user is looking at"
	NoteNotAllowed = "no context: the site is not allowed"
	NoteNoContext  = "no context from this tab yet: the page has no context providers, or has not been sampled"
)

// PinnedNote explains pinned items wherever they appear.
const PinnedNote = "frozen snapshots the user pinned; ids in them stay valid, the view may have moved on"

// View is the UI context payload: what the get_ui_context tool returns and
// the webmcp://ui-context resource holds.
type View struct {
	// Tab is the focused tab; nil when there is none, or when its site is
	// not allowed (nothing about such a tab reaches agents).
	Tab *TabRef `json:"tab,omitempty"`
	// Providers are the page's context providers that had something to
	// say, in registration order.
	Providers []Provider `json:"providers"`
	// Notes say which providers were left out, and why.
	Notes []Note `json:"notes,omitempty"`
	// Ambient is the page's text selection and focused element.
	Ambient *Ambient `json:"ambient,omitempty"`
	// Pinned are the pinned snapshots of every connected browser.
	Pinned []Pinned `json:"pinned"`
	// PinnedNote explains Pinned; set when there are pins.
	PinnedNote string `json:"pinnedNote,omitempty"`
	// Descriptions hold each provider's invariant description, once, by
	// provider id (of Providers and Pinned).
	Descriptions map[string]string `json:"descriptions,omitempty"`
	// SampledAt is when the tab's context was sampled (RFC 3339, UTC).
	SampledAt string `json:"sampledAt,omitempty"`
	// Stale says why the context is not fresh: the browser was asked for
	// a fresh sample and did not give one, so this is the latest it sent.
	Stale string `json:"stale,omitempty"`
	// Note says why there is no tab context.
	Note string `json:"note,omitempty"`
}

// TabRef names the focused tab.
type TabRef struct {
	ID    int    `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Provider is what one context provider reported.
type Provider struct {
	ID      string `json:"id"`
	Summary string `json:"summary,omitempty"`
	// Data is the provider's JSON payload, or a [Cut] marker.
	Data json.RawMessage `json:"data,omitempty"`
	// Stale says why Summary and Data are an earlier answer, not a fresh
	// one (a page tool sampled as context that did not answer in time).
	Stale string `json:"stale,omitempty"`
}

// Note says why a provider was left out.
type Note struct {
	ID   string `json:"id"`
	Note string `json:"note"`
}

// Ambient is what the bridge sees without the page's help, as the protocol
// carries it (cut to size in a View).
type Ambient = protocol.Ambient

// Element is the focused element.
type Element = protocol.Element

// Pinned is one pinned snapshot.
type Pinned struct {
	ProviderID string          `json:"providerId"`
	Summary    string          `json:"summary,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	TabID      int             `json:"tabId"`
	URL        string          `json:"url,omitempty"`
	Title      string          `json:"title,omitempty"`
	PinnedAt   string          `json:"pinnedAt,omitempty"` // RFC 3339, UTC
	// Note says what went wrong with the pin's data, if anything.
	Note string `json:"note,omitempty"`
}

// Build makes the View of the focused tab f (nil: none) and of the pins of
// hosts. Everything page-supplied is cut to size on the way (see CapData);
// text is kept as the page wrote it otherwise, since JSON cannot break out
// of anything.
func Build(hosts []Host, f *Focus) *View {
	v := &View{Providers: []Provider{}, Pinned: []Pinned{}}
	descs := map[string]string{}
	describe := func(id, d string) {
		if d = clip(d, maxDescription); d != "" {
			if _, ok := descs[id]; !ok {
				descs[id] = d
			}
		}
	}
	switch {
	case len(hosts) == 0:
		v.Note = NoteNoBrowser
	case f == nil:
		v.Note = NoteNoFocus
	case !f.Tab.Allowed:
		v.Note = NoteNotAllowed
	default:
		v.Tab = &TabRef{ID: f.Tab.ID, URL: clip(f.Tab.URL, maxURL), Title: clip(f.Tab.Title, maxTitle)}
		c := f.Context
		if c == nil {
			v.Note = NoteNoContext
			break
		}
		if c.Time > 0 {
			v.SampledAt = FormatTime(c.Time)
		}
		for _, p := range c.Providers {
			id := clip(p.ID, maxID)
			if p.Note != "" {
				v.Notes = append(v.Notes, Note{ID: id, Note: clip(p.Note, maxNote)})
				continue
			}
			data, problem := CapData(p.Data)
			if problem != "" {
				v.Notes = append(v.Notes, Note{ID: id, Note: "left out: " + problem})
				continue
			}
			v.Providers = append(v.Providers, Provider{ID: id, Summary: clip(p.Summary, maxSummary), Data: data, Stale: clip(p.Stale, maxNote)})
			describe(id, p.Description)
		}
		if a := c.Ambient; a != nil {
			amb := &Ambient{Selection: clip(a.Selection, maxSelection), SelectionCut: a.SelectionCut}
			if utf8.RuneCountInString(a.Selection) > maxSelection {
				amb.SelectionCut = true
			}
			if e := a.Focused; e != nil && (e.Role != "" || e.Name != "" || e.Tag != "") {
				amb.Focused = &Element{Role: clip(e.Role, maxElement), Name: clip(e.Name, maxElement), Tag: clip(e.Tag, maxElement)}
			}
			if amb.Selection != "" || amb.Focused != nil {
				v.Ambient = amb
			}
		}
	}
	for _, h := range hosts {
		if h.State == nil {
			continue
		}
		for _, p := range h.State.Pins {
			id := clip(p.ProviderID, maxID)
			pin := Pinned{ProviderID: id, Summary: clip(p.Summary, maxSummary), TabID: p.TabID,
				URL: clip(p.URL, maxURL), Title: clip(p.Title, maxTitle)}
			if p.PinnedAt > 0 {
				pin.PinnedAt = FormatTime(p.PinnedAt)
			}
			var problem string
			if pin.Data, problem = CapData(p.Data); problem != "" {
				pin.Note = "data left out: " + problem
			}
			v.Pinned = append(v.Pinned, pin)
			describe(id, p.Description)
		}
	}
	if len(v.Pinned) > 0 {
		v.PinnedNote = PinnedNote
	}
	if len(descs) > 0 {
		v.Descriptions = descs
	}
	return v
}

// FormatTime formats Unix milliseconds as RFC 3339 in UTC.
func FormatTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}
