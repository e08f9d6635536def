package uicontext

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MaxBlock bounds the text that Render returns, in bytes; Claude Code, for
// one, cuts a hook's output at 10,000 characters. What does not fit is
// named, with a pointer to get_ui_context. A typical page's block is well
// under 1 KiB.
const MaxBlock = 8 << 10

// Tags of the blocks Render writes.
const (
	TagUIContext     = "ui_context"
	TagPinnedContext = "pinned_context"
)

// Render writes v as the text that a prompt hook adds to the user's
// message: a <ui_context> block with the focused tab, its providers
// (summary, then the data as compact JSON), the left-out providers and the
// ambient context; and, when there are pins, a <pinned_context> block
// marked as frozen snapshots. Descriptions are not repeated here (they go
// into the MCP instructions once). It returns "" when v has neither a tab
// nor pins. now only decides how pin times are written.
//
//	<ui_context>
//	tab 12 "Trace viewer" http://localhost:8080/
//	trace.Timeline#selection: Selected slice "CommitNavigation" (12.3 ms)
//	  {"type":"slice","id":3}
//	selection: "CommitNavigation"
//	focused: button "Zoom in"
//	</ui_context>
//	<pinned_context note="frozen snapshots the user pinned; ids in them stay valid, the view may have moved on">
//	trace.Timeline#selection (pinned 21:10 UTC from tab 12 "Trace viewer"): Selected slice "Layout"
//	  {"type":"slice","id":7}
//	</pinned_context>
//
// Page-supplied text is flattened to one line and neutralized (see
// [Neutralize]); so is the JSON of data, by escaping (its value stays the
// same).
func Render(v *View, now time.Time) string {
	if v == nil || (v.Tab == nil && len(v.Pinned) == 0) {
		return ""
	}
	const (
		dataLeftOut = "  [data left out: the context is over its size limit; call get_ui_context]\n"
		overLine    = "[%d more left out: the context is over its size limit; call get_ui_context]\n"
	)
	openUI, closeUI := "<"+TagUIContext+">\n", "</"+TagUIContext+">\n"
	openPins, closePins := fmt.Sprintf("<%s note=%q>\n", TagPinnedContext, PinnedNote), "</"+TagPinnedContext+">\n"

	// The fixed lines first, so that the entries (providers, notes, pins)
	// share what is left of MaxBlock.
	var tabLine, ambient string
	fixed := 0
	if t := v.Tab; t != nil {
		tabLine = fmt.Sprintf("tab %d", t.ID)
		if title := clip(t.Title, maxTitle); title != "" {
			tabLine += " " + quote(title)
		}
		if u := clip(t.URL, maxURL); u != "" {
			tabLine += " " + Neutralize(u)
		}
		tabLine += "\n"
		ambient = ambientLines(v.Ambient)
		fixed += len(openUI) + len(tabLine) + len(ambient) + len(closeUI) + len(overLine) + 10
	}
	if len(v.Pinned) > 0 {
		fixed += len(openPins) + len(closePins) + len(overLine) + 10
	}
	budget := MaxBlock - fixed

	// entries writes heads with their data while they fit in limit bytes:
	// then heads only, then a count of what was left out.
	type item struct {
		head string
		data json.RawMessage
	}
	entries := func(items []item, limit int) (text string, used int) {
		var b strings.Builder
		over := 0
		for _, it := range items {
			head := Neutralize(it.head) + "\n"
			body := dataLine(it.data)
			switch {
			case b.Len()+len(head)+len(body) <= limit:
				b.WriteString(head)
				b.WriteString(body)
			case body != "" && b.Len()+len(head)+len(dataLeftOut) <= limit:
				b.WriteString(head)
				b.WriteString(dataLeftOut)
			default:
				over++
			}
		}
		if over > 0 {
			fmt.Fprintf(&b, overLine, over)
		}
		return b.String(), b.Len()
	}

	// Pins first: the user chose them. They get half the room when there
	// is a tab too.
	var pins string
	if len(v.Pinned) > 0 {
		var items []item
		for _, p := range v.Pinned {
			head := fmt.Sprintf("%s (pinned %s)", clip(p.ProviderID, maxID), PinOrigin(p, now))
			if s := clip(p.Summary, maxSummary); s != "" {
				head += ": " + s
			}
			if p.Note != "" {
				head += " [" + clip(p.Note, maxNote) + "]"
			}
			items = append(items, item{head, p.Data})
		}
		limit := budget
		if v.Tab != nil {
			limit = budget / 2
		}
		var used int
		pins, used = entries(items, limit)
		budget -= used
	}

	var b strings.Builder
	if v.Tab != nil {
		var items []item
		for _, p := range v.Providers {
			head := clip(p.ID, maxID) + ":"
			if s := clip(p.Summary, maxSummary); s != "" {
				head += " " + s
			}
			if p.Stale != "" {
				head += " [stale: " + clip(p.Stale, maxNote) + "]"
			}
			items = append(items, item{head, p.Data})
		}
		for _, n := range v.Notes {
			items = append(items, item{fmt.Sprintf("%s: left out (%s)", clip(n.ID, maxID), clip(n.Note, maxNote)), nil})
		}
		text, _ := entries(items, budget)
		b.WriteString(openUI)
		b.WriteString(tabLine)
		b.WriteString(text)
		b.WriteString(ambient)
		b.WriteString(closeUI)
	}
	if len(v.Pinned) > 0 {
		b.WriteString(openPins)
		b.WriteString(pins)
		b.WriteString(closePins)
	}
	return b.String()
}

// ambientLines are the lines of the selection and the focused element.
func ambientLines(a *Ambient) string {
	if a == nil {
		return ""
	}
	var b strings.Builder
	if a.Selection != "" {
		cut := ""
		if a.SelectionCut {
			cut = " (cut)"
		}
		fmt.Fprintf(&b, "selection: %s%s\n", quote(clip(a.Selection, maxSelection)), cut)
	}
	if e := a.Focused; e != nil {
		what := clip(e.Role, maxElement)
		if what == "" {
			what = clip(e.Tag, maxElement)
		}
		if what == "" {
			what = "element"
		}
		line := "focused: " + Neutralize(what)
		if n := clip(e.Name, maxElement); n != "" {
			line += " " + quote(n)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// PinOrigin says when and where a pin was taken: "21:10 UTC from tab 12
// "Trace viewer"", with the date when it was not today.
func PinOrigin(p Pinned, now time.Time) string {
	var parts []string
	if at, err := time.Parse(time.RFC3339, p.PinnedAt); err == nil {
		at, now := at.UTC(), now.UTC()
		if at.YearDay() == now.YearDay() && at.Year() == now.Year() {
			parts = append(parts, at.Format("15:04 UTC"))
		} else {
			parts = append(parts, at.Format("2006-01-02 15:04 UTC"))
		}
	}
	tab := fmt.Sprintf("from tab %d", p.TabID)
	if t := clip(p.Title, maxTitle); t != "" {
		tab += " " + quote(t)
	}
	return strings.Join(append(parts, tab), " ")
}

// dataLine is data's line in a block: "  " and the compact JSON, or a
// marker's explanation and preview; "" for no data.
func dataLine(data json.RawMessage) string {
	if len(data) == 0 {
		return ""
	}
	if c, ok := asCut(data); ok {
		note := clip(c.Note, maxNote)
		if note == "" {
			note = "data was cut: call the page's tools for the rest"
		}
		if c.Bytes > 0 {
			note = fmt.Sprintf("%s (%d bytes)", note, c.Bytes)
		}
		line := "  [data cut: " + Neutralize(note) + "]"
		if p := clip(c.Preview, maxBlockPreview); p != "" {
			line += " preview: " + Neutralize(p)
		}
		return line + "\n"
	}
	return "  " + string(neutralizeJSON(data)) + "\n"
}

// quote quotes page-supplied text for a line: neutralized and in Go
// syntax, so that quotes inside are escaped.
func quote(s string) string {
	return fmt.Sprintf("%q", Neutralize(s))
}
