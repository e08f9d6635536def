package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Page plays the pages of a fake browser: it answers calls by tool name and
// requests by method, and records them. Its Serve and ServeRequest are
// fakeext handlers. A new Page answers "echo" with [EchoHandler].
type Page struct {
	mu       sync.Mutex
	handlers map[string]fakeext.Handler
	methods  map[string]fakeext.Handler
	calls    []*protocol.Message
	requests []*protocol.Message
}

// NewPage returns a Page whose only tool is "echo".
func NewPage() *Page {
	p := &Page{handlers: map[string]fakeext.Handler{}, methods: map[string]fakeext.Handler{}}
	p.Handle("echo", EchoHandler)
	return p
}

// Handle sets the handler of the tools named name (in any tab).
func (p *Page) Handle(name string, h fakeext.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handlers[name] = h
}

// HandleRequest sets the handler of the requests with method.
func (p *Page) HandleRequest(method string, h fakeext.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.methods[method] = h
}

// Serve answers a call: not_found for a tool without a handler.
func (p *Page) Serve(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
	p.mu.Lock()
	p.calls = append(p.calls, call)
	h := p.handlers[call.Name]
	p.mu.Unlock()
	if h == nil {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no tool %q in tab %d", call.Name, call.TabID)
	}
	return h(ctx, call)
}

// ServeRequest answers a request: bad_request for a method without a
// handler.
func (p *Page) ServeRequest(ctx context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	h := p.methods[req.Method]
	p.mu.Unlock()
	if h == nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "the fake extension does not answer %s requests", req.Method)
	}
	return h(ctx, req)
}

// Calls returns the calls the pages received so far.
func (p *Page) Calls() []*protocol.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*protocol.Message(nil), p.calls...)
}

// Requests returns the requests the extension received so far.
func (p *Page) Requests() []*protocol.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*protocol.Message(nil), p.requests...)
}

// EchoHandler answers with where the call went and its arguments, as
// [Echoed].
func EchoHandler(_ context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("null")
	}
	out := fmt.Sprintf(`{"tab":%d,"frame":%d,"name":%q,"args":%s}`, call.TabID, call.FrameID, call.Name, args)
	return json.RawMessage(out), nil
}

// Echoed is what [EchoHandler] answers.
type Echoed struct {
	Tab   int            `json:"tab"`
	Frame int            `json:"frame"`
	Name  string         `json:"name"`
	Args  map[string]any `json:"args"`
}

// Blocker is a page tool that runs until it is cancelled.
type Blocker struct {
	Started   chan string // the ids of the calls that started
	Cancelled chan string // the ids of the calls whose context ended
}

// NewBlocker returns a Blocker with room for ten calls.
func NewBlocker() *Blocker {
	return &Blocker{Started: make(chan string, 10), Cancelled: make(chan string, 10)}
}

// Handler is the tool's handler: it reports the call on Started, waits
// until the call is cancelled, reports that on Cancelled and returns no
// output (which fakeext answers as a cancelled call).
func (b *Blocker) Handler(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
	b.Started <- call.ID
	<-ctx.Done()
	b.Cancelled <- call.ID
	return nil, nil
}

// Tab is an allowed tab on localhost:8080; tab 12 is the active one of its
// window.
func Tab(id int, title string) protocol.Tab {
	return protocol.Tab{
		ID: id, WindowID: 1, Active: id == 12, Title: title,
		URL:    fmt.Sprintf("http://localhost:8080/%d", id),
		Origin: "http://localhost:8080", Allowed: true,
	}
}

// Tool is a tool of the top frame of tab tabID, described "Does NAME.".
func Tool(tabID int, name string) protocol.Tool {
	return protocol.Tool{TabID: tabID, Origin: "http://localhost:8080", Name: name, Description: "Does " + name + "."}
}

// IsCancel matches the cancel of the call id, for fakeext's Await.
func IsCancel(id string) func(*protocol.Message) bool {
	return func(m *protocol.Message) bool { return m.Type == protocol.TypeCancel && m.ID == id }
}
