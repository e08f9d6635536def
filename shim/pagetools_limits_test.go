package shim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
)

func TestCapDescription(t *testing.T) {
	tab := protocol.Tab{ID: 1, Origin: "http://localhost"}
	prov := Provenance(protocol.Tool{TabID: 1}, tab) + " " + PageSays
	for _, unit := range []string{"a", "é", "漢", "😀"} {
		page := strings.Repeat(unit, (900<<10)/len(unit)) // 900 KiB
		mt, _, _ := describeTool(protocol.Tool{TabID: 1, Name: "big", Description: page}, tab)
		got := strings.TrimPrefix(mt.Description, prov)
		if len(got) > MaxToolDescription || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes kept, valid UTF-8 %v", unit, len(got), utf8.ValidString(got))
		}
		mark := fmt.Sprintf("[cut by the WebMCP bridge: the page's description is %d bytes; the first ", len(page))
		if !strings.Contains(got, mark) || !strings.HasPrefix(page, strings.TrimSuffix(got[:strings.Index(got, "… [cut")], "")) {
			t.Errorf("%s: description ends %q", unit, got[max(0, len(got)-120):])
		}
		kept := got[:strings.Index(got, "… [cut")]
		if want := fmt.Sprintf("the first %d are shown]", len(kept)); !strings.HasSuffix(got, want) {
			t.Errorf("%s: mark does not say %q: %q", unit, want, got[len(got)-60:])
		}
		if len(kept) < MaxToolDescription-200 {
			t.Errorf("%s: only %d bytes kept", unit, len(kept))
		}
	}
	// At the cap: unchanged.
	page := strings.Repeat("a", MaxToolDescription)
	mt, _, _ := describeTool(protocol.Tool{TabID: 1, Name: "ok", Description: page}, tab)
	if mt.Description != prov+page {
		t.Error("a description at the cap was changed")
	}
}

func TestCapTitle(t *testing.T) {
	tab := protocol.Tab{ID: 1}
	for _, tc := range []struct{ in, want string }{
		{"Pin", "Pin"},
		{strings.Repeat("t", MaxToolTitle), strings.Repeat("t", MaxToolTitle)},
		{strings.Repeat("t", MaxToolTitle+1), strings.Repeat("t", MaxToolTitle-len("…")) + "…"},
		{strings.Repeat("é", MaxToolTitle), strings.Repeat("é", (MaxToolTitle-len("…"))/2) + "…"},
	} {
		mt, _, _ := describeTool(protocol.Tool{TabID: 1, Name: "x", Title: tc.in}, tab)
		if mt.Title != tc.want || mt.Annotations.Title != tc.want {
			t.Errorf("title of %d bytes = %q (annotation %q), want %q", len(tc.in), mt.Title, mt.Annotations.Title, tc.want)
		}
		if len(mt.Title) > MaxToolTitle {
			t.Errorf("title of %d bytes kept %d", len(tc.in), len(mt.Title))
		}
	}
}

// logBuffer collects a Server's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A page whose schemas would have made the validator recurse until the
// shim died: the tools are listed, each with a note and the any-object
// schema, calling one is an error that says why, nothing reaches the page,
// and the page's other tools work.
func TestHostileSchemasDoNotCrash(t *testing.T) {
	var logs logBuffer
	s := New(Options{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(s.Close)

	hostile := map[string]string{
		"self":       `{"$ref":"#"}`,
		"all_of":     `{"allOf":[{"$ref":"#"}]}`,
		"defs_cycle": `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		"deep":       strings.Repeat(`{"properties":{"a":`, 3000) + `{}` + strings.Repeat(`}}`, 3000),
		"marked":     `{"type":"object","x-webmcp-rejected":"it is nested more than 64 levels deep"}`,
	}
	tools := []protocol.Tool{{TabID: 3, Name: "tree", Description: "Walks a tree.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#"}},"additionalProperties":false}`)}}
	for name, schema := range hostile {
		tools = append(tools, protocol.Tool{TabID: 3, Name: name, Description: "Hostile.", InputSchema: json.RawMessage(schema)})
	}

	path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
	h := bridgetest.Listen(t, path)
	ctx := bridgetest.Context(t)
	c, err := hostlink.Dial(ctx, path, hostlink.ConnOptions{ID: 1, Client: protocol.ClientInfo{Name: "test-shim"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	p := h.Accept(ctx)
	p.Read(ctx) // the shim's hello
	p.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Session: "s1", Host: &protocol.HostInfo{PID: 1}})
	p.SendMsg(&protocol.Message{Type: protocol.TypeState, State: &protocol.Snapshot{
		Tabs: []protocol.Tab{{ID: 3, Allowed: true, Origin: "http://localhost:8080"}}, Tools: tools}})
	select {
	case <-c.Ready():
	case <-c.Done():
		t.Fatalf("connection ended: %v", c.Err())
	}
	s.syncHost(c)

	ct, st := mcp.NewInMemoryTransports()
	go s.mcp.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		listed[tl.Name] = tl
	}
	for name := range hostile {
		tl := listed[name]
		if tl == nil {
			t.Errorf("%s is not listed", name)
			continue
		}
		if !strings.Contains(tl.Description, "This tool cannot be called: the WebMCP bridge refuses its inputSchema: ") {
			t.Errorf("%s: description %q has no note", name, tl.Description)
		}
		if b, _ := json.Marshal(tl.InputSchema); string(b) != `{"type":"object"}` {
			t.Errorf("%s: advertised schema %.80s, want the any-object schema", name, b)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, "cannot be called: the WebMCP bridge refuses its inputSchema") || !strings.Contains(text, "The page did not run this call.") {
			t.Errorf("call %s = %v %q", name, res.IsError, text)
		}
		if !strings.Contains(logs.String(), "tool="+name) {
			t.Errorf("no log line for %s", name)
		}
	}
	for name, why := range map[string]string{"self": "never end", "deep": "nested more than 64 levels", "marked": "the browser extension refused it"} {
		if !strings.Contains(listed[name].Description, why) {
			t.Errorf("%s: description %q does not say %q", name, listed[name].Description, why)
		}
	}

	// The legitimate recursive tool works: checked, then sent to the page.
	tree := listed["tree"]
	if tree == nil || strings.Contains(tree.Description, "cannot be called") {
		t.Fatalf("tree = %+v", tree)
	}
	// 900 levels: the SDK refuses messages nested deeper than 1,000.
	deep := json.RawMessage(strings.Repeat(`{"x":`, 900) + "{}" + strings.Repeat("}", 900))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tree", Arguments: deep})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "too large or too deeply nested") || !strings.Contains(text, "The page did not run this call.") {
		t.Errorf("900 levels deep = %v %q", res.IsError, text)
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tree", Arguments: json.RawMessage(`{"x":{"x":{}}}`)})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	_, call := p.Read(ctx)
	if call.Type != protocol.TypeCall || call.Name != "tree" || string(call.Arguments) != `{"x":{"x":{}}}` {
		t.Fatalf("the page got %+v", call)
	}
	p.SendMsg(&protocol.Message{Type: protocol.TypeResult, ID: call.ID, Output: json.RawMessage(`"ok"`)})
	if res := bridgetest.Await(ctx, t, done, "the tree call"); res == nil || res.IsError {
		t.Errorf("tree call = %+v", res)
	}
}

// A schema that is a library's object rather than JSON Schema (zod's
// internals, as a page hands them to registerTool by mistake) is listed
// with a note and the any-object schema (no strict client is handed it),
// its calls fail saying what the page must do, and the warning is logged
// once per schema in a server (two tools share it here) and not at all in
// a one-shot command (its stderr is for the command's own trouble).
func TestLibrarySchemaIsListedWithANote(t *testing.T) {
	zod := json.RawMessage(`{"_def":{"unknownKeys":"strip","catchall":{"_def":{"typeName":"ZodNever"},"~standard":{"version":1,"vendor":"zod"}},"typeName":"ZodObject"},"~standard":{"version":1,"vendor":"zod"},"_cached":null}`)
	state := func(desc string) *protocol.Snapshot {
		return &protocol.Snapshot{
			Tabs: []protocol.Tab{{ID: 3, Allowed: true, Origin: "http://localhost:8080"}},
			Tools: []protocol.Tool{
				{TabID: 3, Name: "search", Description: desc, InputSchema: zod},
				{TabID: 3, Name: "find", Description: desc, InputSchema: zod},
			},
		}
	}
	for _, oneShot := range []bool{false, true} {
		var logs logBuffer
		s := New(Options{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		t.Cleanup(s.Close)
		s.oneShot.Store(oneShot)
		path := filepath.Join(bridgetest.RuntimeDir(t), "host-1.sock")
		h := bridgetest.Listen(t, path)
		ctx := bridgetest.Context(t)
		c, err := hostlink.Dial(ctx, path, hostlink.ConnOptions{ID: 1, Client: protocol.ClientInfo{Name: "test-shim"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		p := h.Accept(ctx)
		p.Read(ctx) // the shim's hello
		p.SendMsg(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Session: "s1", Host: &protocol.HostInfo{PID: 1}})
		p.SendMsg(&protocol.Message{Type: protocol.TypeState, State: state("Searches.")})
		select {
		case <-c.Ready():
		case <-c.Done():
			t.Fatalf("connection ended: %v", c.Err())
		}
		s.syncHost(c)
		ct, st := mcp.NewInMemoryTransports()
		go s.mcp.Run(ctx, st)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		list, err := cs.ListTools(ctx, nil)
		if err != nil || len(list.Tools) == 0 {
			t.Fatalf("list tools: %v %v", list, err)
		}
		var tl *mcp.Tool
		for _, x := range list.Tools {
			if x.Name == "search" {
				tl = x
			}
		}
		if tl == nil {
			t.Fatalf("search is not listed")
		}
		if b, _ := json.Marshal(tl.InputSchema); string(b) != `{"type":"object"}` {
			t.Errorf("advertised schema %s, want the any-object schema", b)
		}
		const why = "it is not a JSON Schema but the internals of a zod schema object; the page must pass registerTool a JSON Schema (convert it with z.toJSONSchema() (zod 4) or zod-to-json-schema (zod 3))"
		if !strings.Contains(tl.Description, "(This tool cannot be called: the WebMCP bridge refuses its inputSchema: "+why+". The page must change the schema.)") {
			t.Errorf("description %q has no note that says why", tl.Description)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, why) || !strings.Contains(text, "The page did not run this call.") {
			t.Errorf("call = %v %q", res.IsError, text)
		}
		want := 1
		if oneShot {
			want = 0
		}
		if n := strings.Count(logs.String(), "refusing a page tool's inputSchema"); n != want {
			t.Errorf("one-shot %v: the refusal is logged %d times, want %d:\n%s", oneShot, n, want, logs.String())
		}
	}
}
