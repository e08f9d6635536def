package uicontext

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

// limitsFile is testdata/limits/uicontext.json, which the extension's Node
// tests (extension/test/snapshot.test.js) read too.
type limitsFile struct {
	Extension struct {
		DataBytes            int    `json:"dataBytes"`
		PreviewBytes         int    `json:"previewBytes"`
		CutNote              string `json:"cutNote"`
		SummaryChars         int    `json:"summaryChars"`
		DescriptionChars     int    `json:"descriptionChars"`
		NoteChars            int    `json:"noteChars"`
		ProviderIDChars      int    `json:"providerIdChars"`
		ProvidersPerDocument int    `json:"providersPerDocument"`
		SelectionChars       int    `json:"selectionChars"`
		ElementNameChars     int    `json:"elementNameChars"`
		ElementFieldChars    int    `json:"elementFieldChars"`
		Pins                 int    `json:"pins"`
	} `json:"extension"`
	Shim struct {
		TitleChars                    int `json:"titleChars"`
		URLChars                      int `json:"urlChars"`
		BlockBytes                    int `json:"blockBytes"`
		BlockPreviewChars             int `json:"blockPreviewChars"`
		InstructionsDescriptionChars  int `json:"instructionsDescriptionChars"`
		InstructionsDescriptionsBytes int `json:"instructionsDescriptionsBytes"`
	} `json:"shim"`
	Cuts []struct {
		Name         string `json:"name"`
		Prefix       string `json:"prefix"`
		Repeat       string `json:"repeat"`
		Times        int    `json:"times"`
		Suffix       string `json:"suffix"`
		Cut          bool   `json:"cut"`
		Bytes        int    `json:"bytes"`
		PreviewBytes int    `json:"previewBytes"`
	} `json:"cuts"`
}

func readLimits(t *testing.T) limitsFile {
	t.Helper()
	b, err := os.ReadFile("../../testdata/limits/uicontext.json")
	if err != nil {
		t.Fatal(err)
	}
	var l limitsFile
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLimitsAreTheGolden checks the guard's numbers against the one list
// of UI context limits: the shim guards with exactly the extension's
// limits, so that it never cuts what a conforming extension sent.
func TestLimitsAreTheGolden(t *testing.T) {
	l := readLimits(t)
	e, s := l.Extension, l.Shim
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"MaxData", MaxData, e.DataBytes},
		{"MaxPreview", MaxPreview, e.PreviewBytes},
		{"maxSummary", maxSummary, e.SummaryChars},
		{"maxDescription", maxDescription, e.DescriptionChars},
		{"maxNote", maxNote, e.NoteChars},
		{"maxID", maxID, e.ProviderIDChars},
		{"maxSelection", maxSelection, e.SelectionChars},
		{"maxElement", maxElement, e.ElementFieldChars},
		{"maxTitle", maxTitle, s.TitleChars},
		{"maxURL", maxURL, s.URLChars},
		{"MaxBlock", MaxBlock, s.BlockBytes},
		{"maxBlockPreview", maxBlockPreview, s.BlockPreviewChars},
		{"maxBriefDesc", maxBriefDesc, s.InstructionsDescriptionChars},
		{"maxDescriptions", maxDescriptions, s.InstructionsDescriptionsBytes},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, testdata/limits/uicontext.json says %d", c.name, c.got, c.want)
		}
	}
	if CutNote != e.CutNote {
		t.Errorf("CutNote = %q, testdata/limits/uicontext.json says %q", CutNote, e.CutNote)
	}
	if e.ElementNameChars > maxElement {
		t.Errorf("the extension cuts names to %d, more than the guard's %d", e.ElementNameChars, maxElement)
	}
}

// TestLimitsCuts runs the golden cuts through CapData: the data as the page
// wrote it, and as the browser's native messaging sends it ("<" as
// \u003C), give the same decision, and a cut gives the extension's marker.
func TestLimitsCuts(t *testing.T) {
	for _, c := range readLimits(t).Cuts {
		text := c.Prefix + strings.Repeat(c.Repeat, c.Times) + c.Suffix
		for _, in := range []string{text, strings.ReplaceAll(text, "<", `\u003C`)} {
			out, problem := CapData(json.RawMessage(in))
			if problem != "" {
				t.Fatalf("%s: %s", c.Name, problem)
			}
			cut, isCut := asCut(out)
			if isCut != c.Cut {
				t.Errorf("%s: cut = %v, want %v", c.Name, isCut, c.Cut)
				continue
			}
			if !c.Cut {
				if string(out) != in {
					t.Errorf("%s: data that fits was changed", c.Name)
				}
				continue
			}
			want := Cut{Truncated: true, Bytes: c.Bytes, Preview: text[:c.PreviewBytes], Note: CutNote}
			if cut != want {
				t.Errorf("%s: marker %+v, want %+v", c.Name, cut, want)
			}
			if b, _ := json.Marshal(want); string(out) != string(b) {
				t.Errorf("%s: marker %s, want %s", c.Name, out, b)
			}
		}
	}
}

func TestPageSize(t *testing.T) {
	for in, want := range map[string]int{
		`"<>&"`:                    5,
		`"\u003c\u003E\u0026"`:     5,
		`"\\u003c"`:                9, // an escaped backslash, then text
		`"\u2028"`:                 5,
		`"\u00e9\n\"\\"`:           14,
		`{"a":"\u003c","b":[1,2]}`: 19,
	} {
		if got := pageSize([]byte(in)); got != want {
			t.Errorf("pageSize(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestGoldenContextPassesUnchanged checks the trust the other way round:
// the golden context messages of testdata/protocol, as the extension sends
// them (data cut by the extension included), reach the agent unchanged.
func TestGoldenContextPassesUnchanged(t *testing.T) {
	b, err := os.ReadFile("../../testdata/protocol/context.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Name    string           `json:"name"`
			Message protocol.Message `json:"message"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	cuts := 0
	for _, c := range f.Cases {
		ctx := c.Message.Context
		for _, p := range ctx.Providers {
			if p.Note != "" {
				if clip(p.Note, maxNote) != p.Note {
					t.Errorf("%s: note of %s was cut", c.Name, p.ID)
				}
				continue
			}
			var want bytes.Buffer
			if err := json.Compact(&want, p.Data); err != nil {
				t.Fatal(err)
			}
			out, problem := CapData(p.Data)
			if problem != "" || string(out) != want.String() {
				t.Errorf("%s: data of %s became %s (%s)", c.Name, p.ID, out, problem)
			}
			if _, ok := asCut(out); ok {
				cuts++
			}
			if clip(p.Summary, maxSummary) != p.Summary || clip(p.Description, maxDescription) != p.Description {
				t.Errorf("%s: summary or description of %s was cut", c.Name, p.ID)
			}
		}
		if a := ctx.Ambient; a != nil && clip(a.Selection, maxSelection) != a.Selection {
			t.Errorf("%s: the selection was cut", c.Name)
		}
	}
	if cuts == 0 {
		t.Error("no golden context carries data the extension cut")
	}
}
