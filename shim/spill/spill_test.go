package spill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func TestSmallResultsStay(t *testing.T) {
	s := &Spiller{Dir: filepath.Join(t.TempDir(), "results"), Threshold: 100}
	for _, res := range []*mcp.CallToolResult{text(strings.Repeat("x", 100)), {IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("e", 500)}}}} {
		if got := s.Apply(res, "t", true); got != res {
			t.Errorf("Apply changed a result it should keep: %+v", got)
		}
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("a results directory was made for nothing (%v)", err)
	}
}

func TestBigResultGoesToAPrivateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	s := &Spiller{Dir: dir, Threshold: 1000}
	var lines []string
	for i := range 500 {
		lines = append(lines, "row "+strings.Repeat("•", i%7)+" "+string(rune('a'+i%26)))
	}
	big := strings.Join(lines, "\n")
	res := s.Apply(text(big), "find_slices", true)
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("spilled result %+v: want a text and a resource link", res)
	}
	msg := res.Content[0].(*mcp.TextContent).Text
	path, _ := res.Meta["dev.webmcp/resultFile"].(string)
	if path == "" || !strings.Contains(msg, path) || !strings.Contains(msg, "KiB") || !strings.Contains(msg, "row  a\nrow • b") {
		t.Fatalf("text %q does not say where, how big, and the first lines", msg)
	}
	if strings.Count(msg, "\nrow") > previewLines {
		t.Errorf("preview has more than %d lines", previewLines)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != big {
		t.Fatalf("the file holds %d bytes (%v), want the whole %d-byte result byte for byte", len(got), err, len(big))
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v (%v), want mode %v", p, fi.Mode().Perm(), err, mode)
		}
	}
	link := res.Content[1].(*mcp.ResourceLink)
	if link.URI != "file://"+path || link.MIMEType != "text/plain" || *link.Size != int64(len(big)) {
		t.Errorf("resource link %+v", link)
	}
	if res := s.Apply(text(big), "find_slices", false); len(res.Content) != 1 {
		t.Errorf("a client without resource links got %d contents", len(res.Content))
	}
}

func TestStructuredResultSpillsAsJSON(t *testing.T) {
	s := &Spiller{Dir: filepath.Join(t.TempDir(), "r"), Threshold: 50}
	raw := json.RawMessage(`{"rows":[` + strings.Repeat(`{"a":1},`, 20) + `{"a":1}]}`)
	res := s.Apply(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: raw}, "q", true)
	path := res.Meta["dev.webmcp/resultFile"].(string)
	if filepath.Ext(path) != ".json" || res.StructuredContent != nil || res.Content[1].(*mcp.ResourceLink).MIMEType != "application/json" {
		t.Errorf("path %s, structured %v, link %+v: want a .json file and no structured content left", path, res.StructuredContent, res.Content[1])
	}
}

func TestClean(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := &Spiller{Dir: filepath.Join(t.TempDir(), "r"), Threshold: 10, Now: func() time.Time { return now }}
	old := s.Apply(text(strings.Repeat("o", 50)), "a", false).Meta["dev.webmcp/resultFile"].(string)
	fresh := s.Apply(text(strings.Repeat("f", 50)), "a", false).Meta["dev.webmcp/resultFile"].(string)
	if err := os.Chtimes(old, now.Add(-25*time.Hour), now.Add(-25*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(fresh, now.Add(-time.Hour), now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Clean(false); n != 1 || err != nil {
		t.Fatalf("Clean(false) = %d, %v; want the one older than a day", n, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh file went: %v", err)
	}
	if n, err := s.Clean(true); n != 1 || err != nil {
		t.Fatalf("Clean(true) = %d, %v", n, err)
	}
}

func TestThreshold(t *testing.T) {
	t.Setenv(ThresholdEnv, "")
	if got := (&Spiller{}).threshold(); got != DefaultThreshold {
		t.Errorf("default %d", got)
	}
	t.Setenv(ThresholdEnv, "1MiB")
	if got := (&Spiller{}).threshold(); got != 1<<20 {
		t.Errorf("from the environment: %d", got)
	}
	if got := (&Spiller{Threshold: 5}).threshold(); got != 5 {
		t.Errorf("set: %d", got)
	}
	for in, want := range map[string]int{"256KiB": 256 << 10, "2MiB": 2 << 20, "1000": 1000, "5KB": 5000, " 7 MiB ": 7 << 20} {
		if got, err := ParseSize(in); got != want || err != nil {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "big", "-1", "1.5MiB", "1GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) took it", bad)
		}
	}
}
