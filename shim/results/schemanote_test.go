package results

import (
	"strings"
	"testing"
)

func TestWithSchemaNote(t *testing.T) {
	res := WithSchemaNote(Text(`{"booked":true}`), `field "showtime": does not match the pattern "^[1-12]:00$"`)
	if res.IsError || len(res.Content) != 2 || textOf(Text(`{"booked":true}`)) != `{"booked":true}` {
		t.Fatalf("WithSchemaNote = %+v", res)
	}
	if got := wire(t, res)["content"].([]any)[1].(map[string]any)["text"].(string); !strings.Contains(got, `field "showtime": does not match the pattern "^[1-12]:00$"`) || !strings.HasPrefix(got, "(Note from the WebMCP bridge") {
		t.Errorf("the note is %q", got)
	}
	if res.Meta[MetaSchemaMismatch] != `field "showtime": does not match the pattern "^[1-12]:00$"` {
		t.Errorf("_meta = %v", res.Meta)
	}
	// An error stays an error, its _meta kept; a long mismatch is cut.
	failed := WithSchemaNote(Failure(CodeInvalidOutput, Ran, "no"), strings.Repeat("x", 5000))
	if !failed.IsError || failed.Meta[MetaPageRan] != "yes" || len(failed.Meta[MetaSchemaMismatch].(string)) > 4*maxMismatch {
		t.Errorf("a failure with a note = %+v", failed)
	}
	if got := WithSchemaNote(Text("ok"), ""); len(got.Content) != 1 || got.Meta != nil {
		t.Errorf("no mismatch, yet %+v", got)
	}
}
