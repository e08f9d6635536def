// Package spill keeps tool results too big for a model's context out of
// it: a result whose text is over a threshold is written to a private file,
// and the agent gets where it is, how big it is and its first lines instead
// (and a resource link to it, for clients that take them).
//
// The files live in a directory only the user can enter (0700; each file
// 0600), are removed a day after they were written by the next shim that
// starts, and all at once by `webmcp-shim clean`.
package spill

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/protocol"

	"github.com/webmcp-bridge/bridge/internal/userfiles"
)

// DefaultThreshold is the most text (in bytes) a result keeps in the
// model's context; over it, the result goes to a file.
const DefaultThreshold = 256 << 10

// ThresholdEnv overrides DefaultThreshold: a number of bytes, or one with
// a KiB or MiB suffix ("1MiB").
const ThresholdEnv = "WEBMCP_MAX_RESULT"

// MaxAge is how long a spilled result is kept.
const MaxAge = 24 * time.Hour

// previewLines and previewBytes bound the first lines a spilled result
// shows.
const (
	previewLines = 20
	previewBytes = 2 << 10
)

// Dir is where spilled results go: webmcp-bridge/results in the user's
// cache directory (beside the runtime directory's fallback), where the
// uninstall finds them too (userfiles.Results).
func Dir() string { return userfiles.Results() }

// ParseSize reads a size: bytes, or a number with KiB, MiB, KB or MB.
func ParseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1000 * 1000}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("%q is not a size: give bytes, or a number with KiB or MiB (e.g. 256KiB)", s)
	}
	return n * mult, nil
}

// Spiller writes results over its Threshold to files in its Dir.
type Spiller struct {
	// Dir is the private directory of the files; "" means Dir().
	Dir string
	// Threshold is the most text a result keeps; 0 means DefaultThreshold,
	// a negative value never spills.
	Threshold int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *Spiller) dir() string {
	if s.Dir == "" {
		return Dir()
	}
	return s.Dir
}

func (s *Spiller) threshold() int {
	if s.Threshold != 0 {
		return s.Threshold
	}
	if v := os.Getenv(ThresholdEnv); v != "" {
		if n, err := ParseSize(v); err == nil {
			return n
		}
	}
	return DefaultThreshold
}

func (s *Spiller) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Size is how much of a result's text would reach the model: its text
// contents and its structured content.
func Size(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	} else if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			n += len(b)
		}
	}
	return n
}

// Apply returns res as it is when it is within the threshold; otherwise it
// writes res's text to a file and returns a result that says where, how
// big, and shows the first lines. links: the client takes resource links
// (MCP 2025-06-18 and later), so one is added. tool names the tool in the
// file's name. An error result is never spilled: errors stay short.
func (s *Spiller) Apply(res *mcp.CallToolResult, tool string, links bool) *mcp.CallToolResult {
	limit := s.threshold()
	if res == nil || res.IsError || limit < 0 || Size(res) <= limit {
		return res
	}
	text, ext := body(res)
	path, err := s.write(tool, ext, text)
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
			"the result is %s, more than the %s the bridge puts in the context, and it could not be saved (%v): the page's tool ran. Ask the page for less (a filter, a page of results)",
			human(len(text)), human(limit), err)}}}
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
		"The result is %s, more than the %s the WebMCP bridge puts in the context, so it was saved to %s (readable by you only; removed after a day, or by `webmcp-shim clean`). Read parts of that file rather than all of it. Its first lines:\n\n%s",
		human(len(text)), human(limit), path, preview(text))}},
		Meta: mcp.Meta{protocol.MetaPrefix + "resultFile": path, protocol.MetaPrefix + "resultBytes": len(text)},
	}
	if links {
		size := int64(len(text))
		mime := "text/plain"
		if ext == ".json" {
			mime = "application/json"
		}
		out.Content = append(out.Content, &mcp.ResourceLink{URI: "file://" + path, Name: filepath.Base(path), MIMEType: mime, Size: &size,
			Description: "the whole result of " + tool})
	}
	return out
}

// body is the text a spilled result keeps: its text contents, or, when it
// only has structured content, that content's JSON.
func body(res *mcp.CallToolResult) (text []byte, ext string) {
	var b bytes.Buffer
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(raw)
		}
	}
	text = b.Bytes()
	if json.Valid(text) {
		return text, ".json"
	}
	return text, ".txt"
}

// write puts text into a new private file and returns its path.
func (s *Spiller) write(tool, ext string, text []byte) (string, error) {
	dir := s.dir()
	if err := endpoint.EnsureRuntimeDir(dir); err != nil { // the same rules: 0700, the user's, no symlink
		return "", err
	}
	var r [6]byte
	rand.Read(r[:])
	name := fmt.Sprintf("%s-%s-%s%s", s.now().UTC().Format("20060102T150405Z"), safe(tool), hex.EncodeToString(r[:]), ext)
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// Clean removes the spilled results older than MaxAge (all of them when
// all is set) and returns how many it removed.
func (s *Spiller) Clean(all bool) (int, error) {
	entries, err := os.ReadDir(s.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if err := endpoint.CheckRuntimeDir(s.dir()); err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || (!all && s.now().Sub(fi.ModTime()) < MaxAge) {
			continue
		}
		if os.Remove(filepath.Join(s.dir(), e.Name())) == nil {
			n++
		}
	}
	return n, nil
}

// preview is the first lines of text, bounded.
func preview(text []byte) string {
	p := text[:min(len(text), previewBytes)]
	for !utf8.Valid(p) && len(p) > 0 {
		p = p[:len(p)-1]
	}
	lines := strings.SplitN(string(p), "\n", previewLines+1)
	if len(lines) > previewLines {
		lines = lines[:previewLines]
	}
	return strings.Join(lines, "\n") + "\n…"
}

// safe keeps a tool name usable in a file name.
func safe(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "result"
	}
	return b.String()
}

// human says n bytes readably.
func human(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
