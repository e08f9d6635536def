// Package fakeext plays the browser extension for tests. It starts a real
// webmcp-host binary the way Chrome does (argv[1] is the caller's origin,
// [protocol.ExtensionOrigin] by default; the environment has
// WEBMCP_RUNTIME_DIR set to a test directory) and talks to it over the host's
// stdin and stdout with real native-messaging frames (package nativemsg).
//
// [Start] returns once the host listens on its socket: the host writes one
// line "webmcp-host: listening on <socket>" to stderr, which fakeext waits
// for (every stderr line is also copied to [Options.Stderr]). From then on:
//
//   - [Ext.Hello], [Ext.SetState], [Ext.UpdateTab], [Ext.AddTools], … send
//     what the extension sends; [Ext.Send] sends any message and
//     [Ext.SendFrame] and [Ext.WriteRaw] send malformed input.
//   - Every "call" from the host runs [Options.Handler] in its own goroutine,
//     and its answer goes back as a "result" or "error". Every "request"
//     (sampleContext, pin, unpin) runs [Options.RequestHandler] the same way
//     when it is set; without one, requests are only queued.
//   - A "cancel" is handled as the extension's service worker handles it
//     (testdata/protocol/sequences): a call or request under way is answered
//     with a "cancelled" error at once and its handler's context is
//     cancelled; whatever the handler returns afterwards is dropped (see
//     [Options.OnDropped]). A cancel of a call already answered is ignored.
//     So every call gets exactly one answer.
//   - [Ext.SetContext] and [Ext.SetPins] send UI context and pins.
//   - Every message from the host (calls and cancels included) is queued for
//     [Ext.Next] and [Ext.Await], after chunks have been joined.
//   - Frames over [protocol.MaxHostFrame] are treated the way Chrome treats
//     them: fakeext stops reading and closes the host's stdin.
//   - [Ext.Close] closes the host's stdin (the browser is gone) and waits for
//     the host to exit.
//
// A typical test:
//
//	ext, err := fakeext.Start(ctx, fakeext.Options{
//		HostBinary: bin, RuntimeDir: t.TempDir(), Stderr: logWriter{t},
//		Handler: func(ctx context.Context, call *protocol.Message) (json.RawMessage, *protocol.Error) {
//			return json.RawMessage(`{"ok":true}`), nil
//		},
//	})
//	if err != nil { t.Fatal(err) }
//	t.Cleanup(func() { ext.Close() })
//	ext.Hello()
//	ext.SetState(tabs, tools)
//	conn, _ := net.Dial("unix", ext.Socket()) // play a shim
//
// Test-only: the bridge's tests (and bridgetest) import it, no binary does.
package fakeext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// ReadyPrefix starts the stderr line by which webmcp-host says that it
// listens; the socket path follows it. Log prefixes such as a time stamp may
// come before it on the line.
const ReadyPrefix = "webmcp-host: listening on "

// Handler answers one call (or, as Options.RequestHandler, one request)
// from the host. It runs in its own goroutine; ctx is cancelled when the
// host cancels the call or the fake browser goes away, and the handler must
// then return soon. A non-nil err is sent as an "error" message; otherwise
// output is sent as the "result" ("null" when nil). When the host cancelled
// the call, fakeext has answered it with a "cancelled" error already, and
// drops what the handler returns, as the extension drops a page's late
// answer.
type Handler func(ctx context.Context, call *protocol.Message) (output json.RawMessage, err *protocol.Error)

// Options configure [Start].
type Options struct {
	// HostBinary is the path of the webmcp-host binary to run. Required.
	HostBinary string
	// RuntimeDir is passed to the host as WEBMCP_RUNTIME_DIR. Required, so
	// that tests never touch the user's real runtime directory.
	RuntimeDir string
	// Origin is the host's first argument; empty means
	// protocol.ExtensionOrigin.
	Origin string
	// Args are more arguments after the origin, e.g. "--parent-window=0" as
	// Chrome on Windows passes.
	Args []string
	// Env holds more "KEY=value" environment entries for the host.
	Env []string
	// Stderr receives the host's stderr, line by line; nil discards it.
	Stderr io.Writer
	// Handler answers calls; nil answers every call with a not_found error.
	Handler Handler
	// RequestHandler answers "request" messages (the message's Method and
	// Params say what is asked) like Handler answers calls: in its own
	// goroutine, cancelled by the host's "cancel". Nil leaves requests
	// unanswered (they are still queued for Next) until the host cancels
	// them, which is answered with "cancelled" as for a call.
	RequestHandler Handler
	// OnDropped, when set, is called with each answer that fakeext drops: a
	// handler's answer to a call or request that the host cancelled while
	// it ran (it was answered "cancelled" already). It runs in the
	// handler's goroutine, after the handler returned.
	OnDropped func(answer *protocol.Message)
	// Browser is what [Ext.Hello] says about the browser; nil means a
	// made-up Chromium with the bridge's extension id.
	Browser *protocol.Browser
	// ExitTimeout bounds how long [Ext.Close] waits for the host to exit
	// after its stdin closed before killing it; 0 means 10 seconds.
	ExitTimeout time.Duration
	// KeepHTML makes [Ext.Send] (and so every message fakeext sends,
	// answers included) write "<", ">" and "&" as they are, the way the
	// browser's JSON.stringify does, instead of escaping them as Go's
	// encoder does by default.
	KeepHTML bool
	// ChunkOver, when positive, makes [Ext.Send] cut a message whose JSON
	// is over ChunkOver bytes into chunk frames of at most that size, as
	// the extension does over protocol.MaxBrowserChunk (ids "x1", "x2", …).
	ChunkOver int
}

// Stats count what the host sent.
type Stats struct {
	Frames  int // native-messaging frames read
	Chunks  int // of which "chunk" messages
	Batches int // of which "batch" messages (each message in one is handled as if it had come alone)
	Largest int // the largest frame body, in bytes
	// Unclear counts the messages whose type or id the extension could
	// read otherwise than the host routed them by (protocol.PeekEnvelope
	// refuses them: a key given twice, "ID" beside "id", …); the host
	// must never forward one.
	Unclear int
}

// Ext is a running webmcp-host and the fake extension attached to it.
type Ext struct {
	opts   Options
	cmd    *exec.Cmd
	socket string

	stdin    io.WriteCloser
	w        *nativemsg.Writer
	sendMu   sync.Mutex // keeps one message's chunks together
	chunkSeq atomic.Uint64
	closeIn  sync.Once

	// ctx is cancelled when the fake browser goes away; every handler's
	// context derives from it.
	ctx      context.Context
	cancel   context.CancelFunc
	handlers sync.WaitGroup

	mu       sync.Mutex
	queue    []*protocol.Message
	notify   chan struct{}       // signalled when queue grows or the stream ends
	ended    bool                // no more messages will come
	readErr  error               // why reading stopped (io.EOF at a clean end)
	calls    map[string]*pending // calls and requests under way, by id
	cancels  map[string]bool     // call ids the host cancelled
	stats    Stats
	exited   chan struct{} // closed when the host process exited
	exitErr  error
	readDone chan struct{}
}

// Start runs the host and returns once it listens on its socket. If the host
// exits first, the error wraps its exit error (an *exec.ExitError for a
// non-zero status); if ctx ends first, the host is killed.
func Start(ctx context.Context, opts Options) (*Ext, error) {
	if opts.HostBinary == "" {
		return nil, errors.New("fakeext: Options.HostBinary is required: build webmcp-host and pass its path")
	}
	if opts.RuntimeDir == "" {
		return nil, errors.New("fakeext: Options.RuntimeDir is required: pass a test directory such as t.TempDir()")
	}
	if opts.Origin == "" {
		opts.Origin = protocol.ExtensionOrigin
	}
	if opts.ExitTimeout == 0 {
		opts.ExitTimeout = 10 * time.Second
	}
	if opts.Handler == nil {
		opts.Handler = func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
			return nil, protocol.Errorf(protocol.CodeNotFound, "fakeext has no handler")
		}
	}

	ready := make(chan string, 1)
	cmd := exec.Command(opts.HostBinary, append([]string{opts.Origin}, opts.Args...)...)
	cmd.Env = append(os.Environ(), endpoint.RuntimeDirEnv+"="+opts.RuntimeDir)
	cmd.Env = append(cmd.Env, opts.Env...)
	lw := &lineWriter{out: opts.Stderr, ready: ready}
	cmd.Stderr = lw
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("fakeext: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("fakeext: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("fakeext: start %s: %w", opts.HostBinary, err)
	}

	e := &Ext{
		opts:     opts,
		cmd:      cmd,
		stdin:    stdin,
		w:        nativemsg.NewWriter(stdin, protocol.MaxBrowserFrame),
		notify:   make(chan struct{}, 1),
		calls:    map[string]*pending{},
		cancels:  map[string]bool{},
		exited:   make(chan struct{}),
		readDone: make(chan struct{}),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	go e.readLoop(stdout)
	go func() {
		// Wait closes stdout, so it may only run once reading is over;
		// the host closes stdout when it exits.
		<-e.readDone
		err := cmd.Wait()
		lw.flush()
		e.mu.Lock()
		e.exitErr = err
		e.mu.Unlock()
		close(e.exited)
	}()

	select {
	case e.socket = <-ready:
		return e, nil
	case <-e.exited:
		e.cancel()
		return nil, fmt.Errorf("fakeext: webmcp-host exited before it listened: %w", e.exitErr)
	case <-ctx.Done():
		e.kill()
		return nil, fmt.Errorf("fakeext: webmcp-host did not say %q: %w", strings.TrimSpace(ReadyPrefix), ctx.Err())
	}
}

// Socket is the path of the host's Unix socket, as the host announced it.
func (e *Ext) Socket() string { return e.socket }

// PID is the host's process id.
func (e *Ext) PID() int { return e.cmd.Process.Pid }

// Kill ends the host at once, as a crash does (SIGKILL on Unix,
// TerminateProcess on Windows): it removes nothing it made. It returns
// once the process has exited (Exited is closed), so that what follows,
// the test's cleanup included, sees a host that is gone.
func (e *Ext) Kill() error {
	if err := e.cmd.Process.Kill(); err != nil {
		return err
	}
	<-e.exited
	return nil
}

// Send sends m to the host as one frame.
func (e *Ext) Send(m *protocol.Message) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(!e.opts.KeepHTML)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("fakeext: encode %s message: %w", m.Type, err)
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if e.opts.ChunkOver <= 0 || len(body) <= e.opts.ChunkOver {
		return e.SendFrame(body)
	}
	frames, err := protocol.Chunks(fmt.Sprintf("x%d", e.chunkSeq.Add(1)), body, e.opts.ChunkOver)
	if err != nil {
		return fmt.Errorf("fakeext: cut a %s message into chunks: %w", m.Type, err)
	}
	e.sendMu.Lock() // the pieces of one message go together
	defer e.sendMu.Unlock()
	for _, f := range frames {
		if err := e.SendFrame(f); err != nil {
			return err
		}
	}
	return nil
}

// SendFrame sends body as one native-messaging frame, whatever it holds.
func (e *Ext) SendFrame(body []byte) error {
	if err := e.w.Write(body); err != nil {
		return fmt.Errorf("fakeext: write to the host's stdin: %w", err)
	}
	return nil
}

// WriteRaw writes p to the host's stdin as is (e.g. a bare frame header). It
// must not run while frames are being sent from other goroutines.
func (e *Ext) WriteRaw(p []byte) error {
	if _, err := e.stdin.Write(p); err != nil {
		return fmt.Errorf("fakeext: write to the host's stdin: %w", err)
	}
	return nil
}

// Hello sends the extension's hello.
func (e *Ext) Hello() error {
	b := e.opts.Browser
	if b == nil {
		b = &protocol.Browser{Name: "Chromium", Version: "156.0.0.0", Instance: "fakeext", ExtensionID: protocol.ExtensionID}
	}
	return e.Send(&protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Browser: b})
}

// SetState sends a whole state of tabs and tools (no contexts).
func (e *Ext) SetState(tabs []protocol.Tab, tools []protocol.Tool) error {
	if tabs == nil {
		tabs = []protocol.Tab{}
	}
	if tools == nil {
		tools = []protocol.Tool{}
	}
	return e.Send(&protocol.Message{Type: protocol.TypeState, State: &protocol.Snapshot{Tabs: tabs, Tools: tools}})
}

// SendState sends a whole state.
func (e *Ext) SendState(s *protocol.Snapshot) error {
	return e.Send(&protocol.Message{Type: protocol.TypeState, State: s})
}

// UpdateTab sends tabUpdated.
func (e *Ext) UpdateTab(tab protocol.Tab) error {
	return e.Send(&protocol.Message{Type: protocol.TypeTabUpdated, Tab: &tab})
}

// RemoveTab sends tabRemoved.
func (e *Ext) RemoveTab(id int) error {
	return e.Send(&protocol.Message{Type: protocol.TypeTabRemoved, TabID: id})
}

// AddTools sends toolsAdded.
func (e *Ext) AddTools(tools ...protocol.Tool) error {
	return e.Send(&protocol.Message{Type: protocol.TypeToolsAdded, Tools: tools})
}

// RemoveTools sends toolsRemoved.
func (e *Ext) RemoveTools(refs ...protocol.ToolRef) error {
	return e.Send(&protocol.Message{Type: protocol.TypeToolsRemoved, Removed: refs})
}

// SetContext sends a tab's UI context.
func (e *Ext) SetContext(c protocol.Context) error {
	return e.Send(&protocol.Message{Type: protocol.TypeContext, Context: &c})
}

// SetPins sends the whole list of pinned snapshots (none clears it: the
// message says "pins":[]).
func (e *Ext) SetPins(pins ...protocol.Pin) error {
	return e.Send(&protocol.Message{Type: protocol.TypePins, Pins: pins})
}

// Next returns the next message from the host, in the order received. After
// the last one it returns the reason the stream ended: io.EOF when the host
// closed stdout, or the read error (e.g. a frame over the limit).
func (e *Ext) Next(ctx context.Context) (*protocol.Message, error) {
	for {
		e.mu.Lock()
		if len(e.queue) > 0 {
			m := e.queue[0]
			e.queue[0] = nil
			e.queue = e.queue[1:]
			e.mu.Unlock()
			return m, nil
		}
		ended, err := e.ended, e.readErr
		e.mu.Unlock()
		if ended {
			return nil, err
		}
		select {
		case <-e.notify:
		case <-ctx.Done():
			return nil, fmt.Errorf("fakeext: waiting for a message from the host: %w", ctx.Err())
		}
	}
}

// Await returns the next message for which match is true, dropping the
// messages before it.
func (e *Ext) Await(ctx context.Context, match func(*protocol.Message) bool) (*protocol.Message, error) {
	for {
		m, err := e.Next(ctx)
		if err != nil {
			return nil, err
		}
		if match(m) {
			return m, nil
		}
	}
}

// Cancelled reports whether the host has sent "cancel" for the call id.
func (e *Ext) Cancelled(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cancels[id]
}

// Stats returns what the host has sent so far.
func (e *Ext) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// CloseStdin closes the host's stdin, as the browser does when the
// extension's port closes, without waiting for the host to exit.
func (e *Ext) CloseStdin() error {
	var err error
	e.closeIn.Do(func() {
		err = e.stdin.Close()
		e.cancel()
	})
	return err
}

// Exited is closed when the host process has exited.
func (e *Ext) Exited() <-chan struct{} { return e.exited }

// Wait waits for the host to exit by itself and returns its exit error (nil
// for status 0). If ctx ends first the host is killed and Wait says so.
func (e *Ext) Wait(ctx context.Context) error {
	select {
	case <-e.exited:
	case <-ctx.Done():
		e.kill()
		return fmt.Errorf("fakeext: webmcp-host did not exit (killed): %w", ctx.Err())
	}
	e.cancel()
	e.handlers.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exitErr
}

// Close closes the host's stdin (the browser went away) and waits for it to
// exit, killing it after Options.ExitTimeout. It returns the host's exit
// error, nil when it exited with status 0. Close may be called more than
// once.
func (e *Ext) Close() error {
	e.CloseStdin()
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.ExitTimeout)
	defer cancel()
	return e.Wait(ctx)
}

// kill ends the host at once and waits for it.
func (e *Ext) kill() {
	e.CloseStdin()
	e.cmd.Process.Kill()
	<-e.exited
	e.handlers.Wait()
}

// readLoop reads frames from the host until its stdout ends.
func (e *Ext) readLoop(stdout io.Reader) {
	defer close(e.readDone)
	r := nativemsg.NewReader(stdout, protocol.MaxHostFrame)
	var joiner protocol.Joiner
	var err error
	for {
		var body []byte
		body, err = r.Read()
		if err != nil {
			break
		}
		m, perr := e.parse(body)
		if perr != nil {
			err = perr
			break
		}
		if m.Type == protocol.TypeChunk {
			whole, done, jerr := joiner.Add(m)
			if jerr != nil {
				err = fmt.Errorf("fakeext: %w", jerr)
				break
			}
			if !done {
				continue
			}
			if m, perr = e.parseWhole(whole); perr != nil {
				err = perr
				break
			}
		}
		if m.Type == protocol.TypeBatch {
			for _, one := range m.Messages {
				inner, perr := e.parseWhole(one)
				if perr == nil && (inner.Type == protocol.TypeBatch || inner.Type == protocol.TypeChunk) {
					perr = fmt.Errorf("fakeext: the host sent a %s inside a batch", inner.Type)
				}
				if perr != nil {
					err = perr
					break
				}
				e.dispatch(inner)
			}
			if err != nil {
				break
			}
			continue
		}
		e.dispatch(m)
	}
	if !errors.Is(err, io.EOF) {
		// Chrome disconnects the port on a bad frame; so does fakeext.
		e.log("fakeext: stopped reading from the host: %v", err)
		e.CloseStdin()
		// Drain what follows so that the host is not blocked writing.
		io.Copy(io.Discard, stdout)
	}
	e.mu.Lock()
	e.ended, e.readErr = true, err
	e.mu.Unlock()
	e.signal()
}

// parse decodes one frame and counts it.
func (e *Ext) parse(body []byte) (*protocol.Message, error) {
	m := new(protocol.Message)
	err := json.Unmarshal(body, m)
	e.mu.Lock()
	e.stats.Frames++
	e.stats.Largest = max(e.stats.Largest, len(body))
	if err == nil && m.Type == protocol.TypeChunk {
		e.stats.Chunks++
	}
	if err == nil && m.Type == protocol.TypeBatch {
		e.stats.Batches++
	}
	e.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("fakeext: the host sent a malformed frame (%v): %.200q", err, body)
	}
	e.checkEnvelope(body)
	return m, nil
}

// checkEnvelope counts a message whose type and id the extension could
// read otherwise than the host did (Stats.Unclear).
func (e *Ext) checkEnvelope(b []byte) {
	if _, err := protocol.PeekEnvelope(b); err != nil {
		e.mu.Lock()
		e.stats.Unclear++
		e.mu.Unlock()
		e.log("fakeext: the host sent a message whose type or id is unclear (%v): %.200q", err, b)
	}
}

// parseWhole decodes a message joined from chunks.
func (e *Ext) parseWhole(b []byte) (*protocol.Message, error) {
	m := new(protocol.Message)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("fakeext: the host sent a malformed chunked message (%v): %.200q", err, b)
	}
	e.checkEnvelope(b)
	return m, nil
}

// pending is a call or request under way: answered once, by its handler or
// by a cancel.
type pending struct {
	typ    string             // protocol.TypeCall or protocol.TypeRequest
	cancel context.CancelFunc // ends the handler's context
}

// dispatch queues m for Next, starts calls and requests, and answers
// cancels, as the extension's service worker does.
func (e *Ext) dispatch(m *protocol.Message) {
	var answer *protocol.Message
	e.mu.Lock()
	switch m.Type {
	case protocol.TypeCall, protocol.TypeRequest:
		h := e.opts.Handler
		if m.Type == protocol.TypeRequest {
			h = e.opts.RequestHandler
		}
		if e.calls[m.ID] != nil {
			// The worker ignores a repeated id while the first is under way.
			e.log("fakeext: %s %s is already under way; the repeated one is ignored", m.Type, m.ID)
			break
		}
		ctx, cancel := context.WithCancel(e.ctx)
		p := &pending{typ: m.Type, cancel: cancel}
		e.calls[m.ID] = p
		if h != nil {
			e.handlers.Add(1)
			go e.handle(ctx, m, p, h)
		}
	case protocol.TypeCancel:
		e.cancels[m.ID] = true
		if p := e.calls[m.ID]; p != nil {
			delete(e.calls, m.ID)
			p.cancel()
			answer = &protocol.Message{Type: protocol.TypeError, ID: m.ID, Error: protocol.Errorf(protocol.CodeCancelled, "the %s was cancelled", p.typ)}
		}
	}
	e.queue = append(e.queue, m)
	e.mu.Unlock()
	e.signal()
	if answer != nil {
		e.answer(answer)
	}
}

// handle runs h for one call or request and answers it, unless a cancel
// answered it first.
func (e *Ext) handle(ctx context.Context, call *protocol.Message, p *pending, h Handler) {
	defer e.handlers.Done()
	out, herr := h(ctx, call)
	answer := &protocol.Message{Type: protocol.TypeResult, ID: call.ID, Output: out}
	switch {
	case herr != nil:
		answer = &protocol.Message{Type: protocol.TypeError, ID: call.ID, Error: herr}
	case out == nil:
		answer.Output = json.RawMessage("null")
	}
	if call.Trace != nil {
		// A traced call's answer carries its marks back, with the extension's.
		answer.Trace = append(call.Trace, protocol.MarkNow("fakeext"))
	}
	e.mu.Lock()
	current := e.calls[call.ID] == p
	if current {
		delete(e.calls, call.ID)
	}
	e.mu.Unlock()
	p.cancel()
	if !current {
		// Cancelled (and answered) while the handler ran: the late answer
		// is dropped, as the worker drops a page's.
		e.log("fakeext: dropped the late %s to cancelled %s %s", answer.Type, call.Type, call.ID)
		if e.opts.OnDropped != nil {
			e.opts.OnDropped(answer)
		}
		return
	}
	e.answer(answer)
}

// answer sends an answer to a call or request.
func (e *Ext) answer(m *protocol.Message) {
	if err := e.Send(m); err != nil && e.ctx.Err() == nil {
		e.log("fakeext: answering %s: %v", m.ID, err)
	}
}

// signal wakes a waiting Next.
func (e *Ext) signal() {
	select {
	case e.notify <- struct{}{}:
	default:
	}
}

// log writes a line of fakeext's own to Options.Stderr.
func (e *Ext) log(format string, args ...any) {
	if e.opts.Stderr != nil {
		fmt.Fprintf(e.opts.Stderr, format+"\n", args...)
	}
}

// lineWriter copies the host's stderr line by line and spots the line that
// announces the socket.
type lineWriter struct {
	out   io.Writer
	ready chan<- string
	buf   []byte
	seen  bool
}

// Write is called by exec's copying goroutine only.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

func (w *lineWriter) line(l []byte) {
	if w.out != nil {
		w.out.Write(append(l[:len(l):len(l)], '\n'))
	}
	if w.seen {
		return
	}
	if i := bytes.Index(l, []byte(ReadyPrefix)); i >= 0 {
		w.seen = true
		w.ready <- strings.TrimSpace(string(l[i+len(ReadyPrefix):]))
	}
}

// flush copies a last line that had no newline; it runs after exec's copying
// goroutine is done.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.line(w.buf)
		w.buf = nil
	}
}
