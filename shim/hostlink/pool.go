package hostlink

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/protocol"
)

// DefaultInterval is how often a watching Pool looks at the runtime
// directory. A connection's end is noticed at once, whatever the interval.
const DefaultInterval = 250 * time.Millisecond

// Retry bounds: a socket that refused a connection (a host that crashed
// and left its socket behind, or one not listening yet) is tried again
// after retryMin, then less and less often, up to retryMax; at once if the
// file is replaced.
const (
	retryMin = 500 * time.Millisecond
	retryMax = 15 * time.Second
)

// PoolOptions configure a [Pool].
type PoolOptions struct {
	// Dir is the runtime directory to watch; "" means endpoint.RuntimeDir().
	Dir string
	// Client is what the shim says about itself to each host.
	Client protocol.ClientInfo
	// Logger receives log lines; nil means slog.Default().
	Logger *slog.Logger
	// OnChange runs after a host's hello, state or change was applied (see
	// ConnOptions.OnChange).
	OnChange func(*Conn)
	// OnReady runs once for each connection, when its host's first state
	// has been applied (see ConnOptions.OnReady).
	OnReady func(*Conn)
	// OnClose runs once for each connection that ended, after its pending
	// calls were answered.
	OnClose func(*Conn, error)
	// Interval is how often Watch scans Dir; 0 means DefaultInterval.
	Interval time.Duration
}

// Pool keeps one connection to each host socket in a runtime directory.
type Pool struct {
	opts PoolOptions
	log  *slog.Logger

	mu     sync.Mutex
	conns  map[string]*Conn // by socket path
	failed map[string]*failure
	lastID uint64
	closed bool
	dirErr error // why the runtime directory is not trusted; nil if it is

	scanned     chan struct{} // closed when the first Scan has finished
	scannedOnce sync.Once
}

// failure remembers a socket that could not be used, so that it is not
// dialled (and logged) at every scan.
type failure struct {
	file  os.FileInfo
	next  time.Time
	delay time.Duration
}

// NewPool returns a Pool that has not connected to anything yet: call Scan
// or Watch.
func NewPool(opts PoolOptions) *Pool {
	if opts.Dir == "" {
		opts.Dir = endpoint.RuntimeDir()
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Pool{opts: opts, log: log, conns: map[string]*Conn{}, failed: map[string]*failure{}, scanned: make(chan struct{})}
}

// Scanned is closed once the first Scan has finished: every host socket
// that was in the directory then has a connection or has failed.
func (p *Pool) Scanned() <-chan struct{} { return p.scanned }

// Dir is the runtime directory the Pool watches.
func (p *Pool) Dir() string { return p.opts.Dir }

// Conns returns the live connections, in the order they were made.
func (p *Pool) Conns() []*Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Conn, 0, len(p.conns))
	for _, c := range p.conns {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Conn) int { return cmp.Compare(a.ID(), b.ID()) })
	return out
}

// Watch scans the runtime directory until ctx ends, then closes every
// connection. The directory need not exist: Watch waits for it.
func (p *Pool) Watch(ctx context.Context) {
	t := time.NewTicker(p.opts.Interval)
	defer t.Stop()
	var logged error // the runtime directory's problem, said once
	for {
		p.Scan(ctx)
		if err := p.DirErr(); err != nil && (logged == nil || err.Error() != logged.Error()) {
			p.log.Error("not connecting to any host", "err", err)
			logged = err
		} else if err == nil && logged != nil {
			p.log.Info("the runtime directory is private again", "dir", p.opts.Dir)
			logged = nil
		}
		select {
		case <-ctx.Done():
			p.Close()
			return
		case <-t.C:
		}
	}
}

// Scan connects to every host socket in the runtime directory that has no
// connection yet, and closes the connections whose socket is gone. It
// returns the errors of the sockets it could not connect to this time.
func (p *Pool) Scan(ctx context.Context) []error {
	defer p.scannedOnce.Do(func() { close(p.scanned) })
	if err := endpoint.CheckRuntimeDir(p.opts.Dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// No host has run yet: nothing to connect to.
			p.setDirErr(nil)
			return nil
		}
		// Not the user's alone: trust nothing in it, not even the
		// connections made while it was.
		p.setDirErr(err)
		p.disconnectAll()
		return []error{err}
	}
	p.setDirErr(nil)
	paths, err := endpoint.HostSockets(p.opts.Dir)
	if err != nil {
		// Only a malformed pattern fails; the pattern is a constant.
		return []error{fmt.Errorf("list host sockets in %s: %w", p.opts.Dir, err)}
	}
	present := map[string]bool{}
	for _, path := range paths {
		present[path] = true
	}

	p.mu.Lock()
	var gone []*Conn
	for path, c := range p.conns {
		if !present[path] {
			gone = append(gone, c)
			delete(p.conns, path)
		}
	}
	for path := range p.failed {
		if !present[path] {
			delete(p.failed, path)
		}
	}
	var todo []string
	now := time.Now()
	for _, path := range paths {
		if _, ok := p.conns[path]; ok {
			continue
		}
		if f := p.failed[path]; f != nil {
			fi, err := os.Stat(path)
			replaced := err == nil && !(os.SameFile(fi, f.file) && fi.ModTime().Equal(f.file.ModTime()))
			if !replaced && now.Before(f.next) {
				continue
			}
		}
		todo = append(todo, path)
	}
	closed := p.closed
	p.mu.Unlock()

	for _, c := range gone {
		c.log.Info("host socket removed; disconnecting")
		c.Close()
	}
	if closed {
		return nil
	}
	var errs []error
	for _, path := range todo {
		if err := p.dial(ctx, path); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// dial connects to one socket and adds the connection.
func (p *Pool) dial(ctx context.Context, path string) error {
	fi, statErr := os.Stat(path)
	p.mu.Lock()
	p.lastID++
	id := p.lastID
	p.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	said := p.client()
	c, err := Dial(dctx, path, ConnOptions{
		Client:   said,
		Logger:   p.log,
		OnChange: p.opts.OnChange,
		OnReady:  p.opts.OnReady,
		OnClose:  p.onClose,
		ID:       id,
		// Listed before its first change (below), so that OnChange
		// sees it in Conns.
		deferRead: true,
	})
	if err != nil {
		if removed, rerr := endpoint.RemoveIfStale(path, err); removed {
			p.log.Info("removed the socket of a host that is gone", "socket", path)
			return nil
		} else if rerr != nil {
			p.log.Warn("cannot remove a stale host socket", "err", rerr)
		}
		if statErr == nil {
			p.noteFailure(path, fi, err)
		}
		if errors.Is(err, endpoint.ErrUntrusted) {
			return err
		}
		return fmt.Errorf("connect to host socket %s: %w", path, err)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.startReading() // so that Close's wait for the reader ends
		c.Close()
		return nil
	}
	p.conns[path] = c
	delete(p.failed, path)
	now := p.opts.Client
	p.mu.Unlock()
	c.startReading()
	if !slices.Equal(now.Agents, said.Agents) { // SetAgents ran while dialling
		c.SayClient(now)
	}
	c.log.Info("connected to host", "socket", path)
	return nil
}

// noteFailure remembers that path could not be used, logging only the first
// failure of a file.
func (p *Pool) noteFailure(path string, fi os.FileInfo, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.failed[path]
	if f == nil || !os.SameFile(fi, f.file) {
		p.log.Info("cannot use host socket; will retry while it exists", "socket", path, "err", shortErr(err))
		f = &failure{file: fi, delay: retryMin}
		p.failed[path] = f
	} else {
		f.delay = min(2*f.delay, retryMax)
	}
	f.file = fi
	f.next = time.Now().Add(f.delay)
}

// onClose drops an ended connection; its socket, if still there, is tried
// again by later scans (a host may close a connection and keep running).
func (p *Pool) onClose(c *Conn, err error) {
	p.mu.Lock()
	if p.conns[c.Path()] == c {
		delete(p.conns, c.Path())
		if fi, serr := os.Stat(c.Path()); serr == nil {
			p.failed[c.Path()] = &failure{file: fi, delay: retryMin, next: time.Now().Add(retryMin)}
		}
	}
	p.mu.Unlock()
	if errors.Is(err, errShimClosed) {
		c.log.Debug("disconnected from host", "why", err)
	} else {
		c.log.Info("disconnected from host", "why", err)
	}
	if p.opts.OnClose != nil {
		p.opts.OnClose(c, err)
	}
}

// client is what the shim says about itself to a host it connects to now.
func (p *Pool) client() protocol.ClientInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opts.Client
}

// SetAgents records the agents the shim serves (each MCP session's client,
// named in initialize) and tells every connected host; hosts connected
// later hear of them in the shim's hello.
func (p *Pool) SetAgents(agents []protocol.AgentInfo) {
	p.mu.Lock()
	p.opts.Client.Agents = slices.Clone(agents)
	ci := p.opts.Client
	conns := make([]*Conn, 0, len(p.conns))
	for _, c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		if err := c.SayClient(ci); err != nil {
			c.log.Debug("cannot tell the host the agent", "err", err)
		}
	}
}

// DirErr says why the last Scan trusted nothing in the runtime directory
// (it wraps endpoint.ErrUntrusted), or is nil.
func (p *Pool) DirErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dirErr
}

func (p *Pool) setDirErr(err error) {
	p.mu.Lock()
	p.dirErr = err
	p.mu.Unlock()
}

// disconnectAll closes every connection and forgets them; later scans may
// connect again.
func (p *Pool) disconnectAll() {
	p.mu.Lock()
	conns := make([]*Conn, 0, len(p.conns))
	for path, c := range p.conns {
		conns = append(conns, c)
		delete(p.conns, path)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Close closes every connection; the Pool makes no new ones afterwards.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]*Conn, 0, len(p.conns))
	for _, c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// WaitReady waits until every live connection has received its host's
// state, or until timeout. It closes the connections that did not answer
// in time and returns one error for each, naming the host.
func (p *Pool) WaitReady(ctx context.Context, timeout time.Duration) []error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	for _, c := range p.Conns() {
		select {
		case <-c.Ready():
		case <-c.Done():
			errs = append(errs, fmt.Errorf("host %s closed the connection before sending its state: %v", c.Path(), c.Err()))
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("host %s did not send its state within %v: is its browser hanging? (closing the browser ends the host)", c.Path(), timeout))
			c.Close()
		}
	}
	return errs
}

// shortErr drops the "dial unix <path>:" prefix that the socket path already
// says.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.HasPrefix(s, "dial unix") {
		return s[i+2:]
	}
	return s
}
