package hostlink

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/lines"
	"github.com/webmcp-bridge/bridge/protocol"
)

// MaxLine is the longest message line a Conn accepts from a host (a result
// of protocol.MaxResult with its envelope); a longer one ends the connection.
const MaxLine = protocol.MaxMessage

// writeTimeout bounds one write to a host. A host that does not read for
// that long is stuck, and the connection is dropped.
const writeTimeout = 10 * time.Second

// ErrClosed is wrapped by the errors of calls on a connection that ended:
// the host exited (its browser went away) or the shim closed it.
var ErrClosed = errors.New("connection to the browser's host closed")

// ErrNotSent is wrapped, with ErrClosed, in the error of a call or request
// that never left the shim: its connection had ended, or ended as it was
// sent. The page did not run it.
var ErrNotSent = errors.New("it was not sent")

// errShimClosed marks a connection that the shim itself closed.
var errShimClosed = errors.New("the shim closed it")

// ConnOptions configure [Dial].
type ConnOptions struct {
	// Client is what the shim says about itself in its hello.
	Client protocol.ClientInfo
	// Logger receives the connection's log lines; nil means slog.Default().
	Logger *slog.Logger
	// OnChange runs after each hello, state or change message has been
	// applied, on the connection's reading goroutine (so in message order).
	// It must not wait for this connection's calls.
	OnChange func(*Conn)
	// OnReady runs once, on the connection's reading goroutine, right after
	// Ready was closed (the host's first state was applied and OnChange
	// ran for it).
	OnReady func(*Conn)
	// OnClose runs once when the connection has ended, after every pending
	// call was answered and before Done is closed (so Close returns after
	// it); err says why (ErrClosed wrapped). It must not call Close.
	OnClose func(*Conn, error)
	// ID is a number that tells this connection from others in logs and
	// keys; the Pool numbers its connections.
	ID uint64

	// deferRead leaves reading to startReading, so that the Pool lists
	// the connection before its first OnChange.
	deferRead bool
}

// Conn is a connection to one webmcp-host.
type Conn struct {
	opts ConnOptions
	path string
	nc   net.Conn
	log  *slog.Logger

	w *lines.Writer // writes whole lines, gathering those sent at once

	state protocol.State
	next  atomic.Uint64 // call counter

	mu      sync.Mutex
	session string
	host    protocol.HostInfo
	browser *protocol.Browser
	pending map[string]chan answer
	err     error // why the connection ended; nil while it runs

	ready     chan struct{} // closed once the first state has been applied
	readyOnce sync.Once
	done      chan struct{} // closed when the connection has ended
}

// answer is the one answer to a call.
type answer struct {
	output json.RawMessage
	err    error
	trace  []protocol.Mark // a traced call's marks
}

// Dial connects to the host socket at path, sends the shim's hello and
// starts reading. It refuses a socket that is not the user's own
// ([endpoint.CheckSocket]) and a host process of another user
// ([endpoint.CheckPeer]), before sending anything. It returns once
// connected; [Conn.Ready] says when the host's state has arrived.
func Dial(ctx context.Context, path string, opts ConnOptions) (*Conn, error) {
	if err := endpoint.CheckSocket(path); err != nil {
		return nil, err
	}
	nc, err := endpoint.Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	// The socket file may be the user's while the process behind it is
	// not (a socket renamed into place): nothing is sent to a host of
	// another user, not even the hello.
	if _, err := endpoint.CheckPeer(nc); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s %s: %w", endpoint.EndpointNoun, path, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Conn{
		opts:    opts,
		path:    path,
		nc:      nc,
		w:       lines.NewWriter(deadlineWriter{nc}),
		log:     log.With("host", filepath.Base(path)),
		pending: map[string]chan answer{},
		ready:   make(chan struct{}),
		done:    make(chan struct{}),
	}
	hello := &protocol.Message{Type: protocol.TypeHello, Protocol: protocol.ProtocolVersion, Client: &opts.Client}
	if err := c.send(hello); err != nil {
		nc.Close()
		return nil, fmt.Errorf("say hello to %s: %w", path, err)
	}
	if !opts.deferRead {
		go c.readLoop()
	}
	return c, nil
}

// startReading starts the reading goroutine of a Conn dialled with
// deferRead, once its owner has recorded it.
func (c *Conn) startReading() { go c.readLoop() }

// ID is the number given in ConnOptions.
func (c *Conn) ID() uint64 { return c.opts.ID }

// Path is the host's socket path.
func (c *Conn) Path() string { return c.path }

// Name names the host for people: its socket's file name.
func (c *Conn) Name() string { return filepath.Base(c.path) }

// Session is the session id the host gave this connection ("" before its
// hello).
func (c *Conn) Session() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// Host is what the host said about itself in its hello.
func (c *Conn) Host() protocol.HostInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.host
}

// Browser is what the host said about its browser; nil while the browser
// has not said hello.
func (c *Conn) Browser() *protocol.Browser {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.browser == nil {
		return nil
	}
	b := *c.browser
	return &b
}

// Snapshot returns a copy of the host's current state.
func (c *Conn) Snapshot() *protocol.Snapshot { return c.state.Snapshot() }

// Ready is closed once the host's first state has arrived and OnChange has
// run for it.
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// Done is closed when the connection has ended and OnClose has run.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended; nil while it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection. Pending calls are answered with an error
// wrapping ErrClosed.
func (c *Conn) Close() error {
	c.end(fmt.Errorf("%w: %w", ErrClosed, errShimClosed))
	<-c.done
	return nil
}

// Call calls the tool name of frame frameID of tab tabID with args (a JSON
// object) and waits for its one answer. It returns the page's output; an
// error from the host or the page as a *protocol.Error; an error wrapping
// ErrClosed when the connection ended first; or ctx's error when ctx ended
// first, in which case the call is cancelled in the page.
func (c *Conn) Call(ctx context.Context, tabID, frameID int, name string, args json.RawMessage) (json.RawMessage, error) {
	// timeout tells the extension how long this caller waits (ms), so that
	// a call still waiting for the user's consent is answered (declined)
	// before the caller gives up; 0 (no deadline) is left out.
	timeout := 0
	if dl, ok := ctx.Deadline(); ok {
		if ms := time.Until(dl).Milliseconds(); ms > 0 && ms <= math.MaxInt32 {
			timeout = int(ms)
		}
	}
	// A traced call carries its marks (ctx's Trace), each hop adds its own.
	var marks []protocol.Mark
	if t := traceFrom(ctx); t != nil {
		marks = append(t.Marks, protocol.MarkNow("shim.out"))
	}
	agent := agentFrom(ctx)
	return c.roundTrip(ctx, func(id string) *protocol.Message {
		return &protocol.Message{Type: protocol.TypeCall, ID: id, TabID: tabID, FrameID: frameID, Name: name,
			Arguments: args, Agent: agent, Timeout: timeout, Trace: marks}
	})
}

// Request asks the extension something other than a tool call: method is
// one of the protocol.Method constants and params its JSON object (nil means
// {}). It is answered exactly like [Conn.Call]: the output, a
// *protocol.Error, an error wrapping ErrClosed, or ctx's error (the request
// is then cancelled in the extension).
func (c *Conn) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	agent := agentFrom(ctx)
	return c.roundTrip(ctx, func(id string) *protocol.Message {
		return &protocol.Message{Type: protocol.TypeRequest, ID: id, Method: method, Params: params, Agent: agent}
	})
}

// roundTrip sends the message that msg builds for a fresh id and waits for
// its one answer (see Call).
func (c *Conn) roundTrip(ctx context.Context, msg func(id string) *protocol.Message) (json.RawMessage, error) {
	ch := make(chan answer, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%w (%w)", err, ErrNotSent)
	}
	id := c.session + "." + strconv.FormatUint(c.next.Add(1), 10)
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.send(msg(id)); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		c.end(fmt.Errorf("%w: sending a message failed: %v", ErrClosed, err))
		return nil, fmt.Errorf("%w (%w)", c.Err(), ErrNotSent)
	}
	select {
	case a := <-ch:
		if t := traceFrom(ctx); t != nil && a.trace != nil {
			t.Marks = append(a.trace, protocol.MarkNow("shim.back"))
		}
		return a.output, a.err
	case <-ctx.Done():
		c.mu.Lock()
		_, still := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if !still {
			// The answer arrived at the same time; prefer it.
			a := <-ch
			return a.output, a.err
		}
		if err := c.send(&protocol.Message{Type: protocol.TypeCancel, ID: id}); err != nil {
			c.log.Debug("could not send cancel", "id", id, "err", err)
		}
		return nil, ctx.Err()
	}
}

// SayClient tells the host what the shim now says about itself (the agent
// it serves, once known).
func (c *Conn) SayClient(ci protocol.ClientInfo) error {
	return c.send(&protocol.Message{Type: protocol.TypeClient, Client: &ci})
}

// send writes one message as one line. It encodes with the message's own
// MarshalJSON: json.Marshal would read the whole text once more to compact
// it and escape "<", ">" and "&" (half the time of a call's 16 MiB of
// arguments; the browser's JSON keeps them as they are anyway).
func (c *Conn) send(m *protocol.Message) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// deadlineWriter writes to a host within writeTimeout.
type deadlineWriter struct{ nc net.Conn }

func (d deadlineWriter) Write(p []byte) (int, error) {
	d.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return d.nc.Write(p)
}

// end ends the connection once, with err as the reason, and answers every
// pending call with it.
func (c *Conn) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = map[string]chan answer{}
	c.mu.Unlock()
	c.nc.Close()
	for _, ch := range pending {
		ch <- answer{err: err}
	}
}

// readLoop reads and handles the host's messages until the connection ends.
func (c *Conn) readLoop() {
	r := bufio.NewReaderSize(c.nc, 64<<10)
	var err error
	for {
		var line []byte
		line, err = lines.Read(r, MaxLine)
		if errors.Is(err, lines.ErrTooLong) {
			err = fmt.Errorf("the host sent %w", err)
		}
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err = c.handle(line); err != nil {
			break
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		err = fmt.Errorf("%w: the host went away (its browser closed or restarted the extension)", ErrClosed)
	case errors.Is(err, net.ErrClosed):
		err = fmt.Errorf("%w: %w", ErrClosed, errShimClosed)
	case !errors.Is(err, ErrClosed):
		err = fmt.Errorf("%w: %v", ErrClosed, err)
	}
	c.end(err)
	// Whatever ended the loop, c.err now holds the first reason.
	err = c.Err()
	if c.opts.OnClose != nil {
		c.opts.OnClose(c, err)
	}
	close(c.done)
}

// handle handles one message line. An error ends the connection.
func (c *Conn) handle(line []byte) error {
	var m protocol.Message
	if err := json.Unmarshal(line, &m); err != nil {
		c.log.Warn("ignoring a malformed message from the host", "err", err, "line", truncate(line, 200))
		return nil
	}
	switch m.Type {
	case protocol.TypeHello:
		if m.Protocol != 0 && m.Protocol != protocol.ProtocolVersion {
			return fmt.Errorf("%w: the host speaks bridge protocol %d, this shim speaks %d: install matching versions of the extension, webmcp-host and webmcp-shim", ErrClosed, m.Protocol, protocol.ProtocolVersion)
		}
		c.mu.Lock()
		if m.Session != "" {
			c.session = m.Session
		}
		if m.Host != nil {
			c.host = *m.Host
		}
		if m.Browser != nil {
			b := *m.Browser
			c.browser = &b
		}
		c.mu.Unlock()
		c.changed()
	case protocol.TypeResult, protocol.TypeError:
		c.mu.Lock()
		ch, ok := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if !ok {
			// A late answer to a call that timed out or was cancelled.
			c.log.Debug("dropping an answer to a call no longer waiting", "id", m.ID)
			return nil
		}
		if m.Type == protocol.TypeError {
			e := m.Error
			if e == nil {
				e = protocol.Errorf(protocol.CodeInternal, "the host sent an error without a payload")
			}
			// A navigated error may carry the output the browser
			// gives such a call (the next document's data).
			ch <- answer{output: m.Output, err: e, trace: m.Trace}
		} else {
			ch <- answer{output: m.Output, trace: m.Trace}
		}
	default:
		if !c.state.Apply(&m) {
			c.log.Debug("ignoring a message of unknown type", "type", m.Type)
			return nil
		}
		c.changed()
		if m.Type == protocol.TypeState {
			c.readyOnce.Do(func() {
				close(c.ready)
				if c.opts.OnReady != nil {
					c.opts.OnReady(c)
				}
			})
		}
	}
	return nil
}

func (c *Conn) changed() {
	if c.opts.OnChange != nil {
		c.opts.OnChange(c)
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
