package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipes connects a Transport to a test that plays the agent: it writes the
// agent's lines and reads the answers the transport writes by itself.
type pipes struct {
	conn    mcp.Connection
	toShim  *io.PipeWriter
	answers *bufio.Reader
}

func newPipes(t *testing.T, max int) *pipes {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c, err := (&Transport{In: inR, Out: outW, MaxMessage: max}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); inW.Close(); outR.Close() })
	return &pipes{conn: c, toShim: inW, answers: bufio.NewReader(outR)}
}

func (p *pipes) send(t *testing.T, line string) {
	t.Helper()
	go io.WriteString(p.toShim, line+"\n") // a pipe waits for the reader
}

func (p *pipes) read(t *testing.T) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a hang guard only
	defer cancel()
	m, err := p.conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *pipes) answer(t *testing.T) map[string]any {
	t.Helper()
	l, err := p.answers.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(l, &v); err != nil {
		t.Fatalf("answer %q: %v", l, err)
	}
	return v
}

func wantRequest(t *testing.T, m jsonrpc.Message, method string) {
	t.Helper()
	if r, ok := m.(*jsonrpc.Request); !ok || r.Method != method {
		t.Fatalf("read %#v, want a %s request", m, method)
	}
}

const ping = `{"jsonrpc":"2.0","id":99,"method":"ping"}`

func TestOversizedToolCallIsAnswered(t *testing.T) {
	p := newPipes(t, 1024)
	big := strings.Repeat("x", 5000)
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+big+`"}}}`)
	a := p.answer(t)
	res, _ := a["result"].(map[string]any)
	if a["id"] != float64(7) || res["isError"] != true {
		t.Fatalf("answer %v, want a result with isError for id 7", a)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	for _, want := range []string{"5.0 KiB", "limit of 1.0 KiB", "the page did not run it"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if meta, _ := res["_meta"].(map[string]any); meta["dev.webmcp/pageRan"] != "no" || meta["dev.webmcp/error"] != "too_large" {
		t.Errorf("_meta %v, want pageRan no and error too_large", res["_meta"])
	}
	// The session goes on.
	p.send(t, ping)
	wantRequest(t, p.read(t), "ping")
}

func TestOversizedRequestWithTheIDLast(t *testing.T) {
	p := newPipes(t, 1024)
	p.send(t, `{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"`+strings.Repeat("y", 9000)+`"},"id":"r-1"}`)
	a := p.answer(t)
	e, _ := a["error"].(map[string]any)
	if a["id"] != "r-1" || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "limit of 1.0 KiB") {
		t.Fatalf("answer %v, want an invalid-request error for id r-1 naming the limit", a)
	}
	p.send(t, ping)
	wantRequest(t, p.read(t), "ping")
}

func TestOversizedNotificationAndGarbageAreSkipped(t *testing.T) {
	p := newPipes(t, 1024)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"`+strings.Repeat("z", 3000)+`"}}`)
	p.send(t, `not json`)
	a := p.answer(t) // only the garbage is answered
	if e, _ := a["error"].(map[string]any); a["id"] != nil || e["code"] != float64(-32700) {
		t.Fatalf("answer %v, want a parse error with a null id", a)
	}
	p.send(t, ping)
	wantRequest(t, p.read(t), "ping")
}

func TestMessagesAtTheLimitPass(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"t":"` + strings.Repeat("x", 200) + `"}}}`
	p := newPipes(t, len(msg))
	p.send(t, msg)
	wantRequest(t, p.read(t), "tools/call")
}

// TestSessionSurvivesABigArgument runs a real MCP server and client over
// the transport: an argument over the limit is an error result, and the
// next call works.
func TestSessionSurvivesABigArgument(t *testing.T) {
	ctx := t.Context()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	calls := 0
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls++
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	go server.Run(ctx, &Transport{In: inR, Out: outW, MaxMessage: 64 << 10})
	client := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strings.Repeat("x", 100<<10)}})
	if err != nil {
		t.Fatalf("an argument over the limit: %v, want an error result", err)
	}
	if !res.IsError || calls != 0 {
		t.Fatalf("an argument over the limit: isError %v after %d calls of the tool; want an error and no call", res.IsError, calls)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "small"}})
	if err != nil || res.IsError || calls != 1 {
		t.Fatalf("the next call: %v, %+v, %d calls", err, res, calls)
	}
}

// TestTooDeepArgumentsAreAnswered: the SDK refuses JSON nested over 1,000
// levels and would end the session; the transport answers the call.
func TestTooDeepArgumentsAreAnswered(t *testing.T) {
	p := newPipes(t, 1<<20)
	deep := strings.Repeat("[", 3000) + strings.Repeat("]", 3000)
	p.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"a":`+deep+`}}}`)
	a := p.answer(t)
	res, _ := a["result"].(map[string]any)
	if a["id"] != float64(5) || res["isError"] != true {
		t.Fatalf("answer %v, want a result with isError for id 5", a)
	}
	p.send(t, ping)
	wantRequest(t, p.read(t), "ping")
}
