package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/schemas"
	"github.com/webmcp-bridge/bridge/shim/spill"
	"github.com/webmcp-bridge/bridge/shim/toolnames"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// Name is the shim's MCP server name and its client name towards hosts.
const Name = "webmcp-shim"

// DefaultTimeout bounds each tool call unless Options say otherwise.
const DefaultTimeout = 60 * time.Second

// Options configure a [Server].
type Options struct {
	// Dir is the runtime directory with the hosts' sockets; "" means
	// endpoint.RuntimeDir().
	Dir string
	// Timeout bounds each page tool call; the call is then cancelled in the
	// page. 0 means no bound.
	Timeout time.Duration
	// Logger receives log lines (stderr only: stdout is the MCP channel);
	// nil means slog.Default().
	Logger *slog.Logger
	// SDKLogger receives the MCP SDK's log lines; nil means Logger.
	SDKLogger *slog.Logger
	// Version is the server version told to MCP clients; "" means "dev".
	Version string
	// MaxResult is the most text (bytes) a page tool's result keeps in the
	// agent's context; a bigger one is saved to a private file and the
	// agent told where (package spill). 0 means spill.DefaultThreshold (or
	// $WEBMCP_MAX_RESULT), a negative value never spills.
	MaxResult int
	// ResultDir is where such results go; "" means spill.Dir().
	ResultDir string
	// BrowserWait bounds how long a call that needs a browser waits for
	// one to connect while none is; 0 means BrowserWait, a negative value
	// does not wait.
	BrowserWait time.Duration
	// HostGrace is how long the tools of a browser whose host went away
	// stay listed, waiting for the same browser to come back (see
	// HostGrace); 0 means HostGrace, a negative value none.
	HostGrace time.Duration
	// DebuggingTools lists page tools that the page marks as meant for
	// debugging (WebMCP's annotations.debugging); off by default, they are
	// left out. $WEBMCP_DEBUGGING_TOOLS=1 turns it on too.
	DebuggingTools bool
}

// DebuggingToolsEnv is the environment variable that, set to 1, lists the
// pages' debugging tools (Options.DebuggingTools): it goes in the agent's
// MCP configuration of the shim ("env").
const DebuggingToolsEnv = "WEBMCP_DEBUGGING_TOOLS"

// Server is the shim's MCP server. Create it with [New].
type Server struct {
	opts    Options
	log     *slog.Logger
	mcp     *mcp.Server
	pool    *hostlink.Pool
	schemas schemas.Cache
	bridge  map[string]*BridgeTool
	changes broadcast // signalled after every change of a host's state
	// hostReady is signalled when a host has sent its first state: a
	// browser is connected.
	hostReady broadcast
	// oneShot is set by Connect: the Server looked for hosts once and
	// will not find more, so a call does not wait for a browser.
	oneShot atomic.Bool
	spill   *spill.Spiller
	agents  agents
	// closeKeys are the keys open_page handed clients without a session
	// (closekeys.go).
	closeKeys closeKeys

	mu    sync.Mutex // guards names, tools, browserKeys and orphans, and orders changes to mcp's tool set
	names *toolnames.Registry[toolKey]
	tools map[toolKey]*pageTool
	// browserKeys are the browser part of the toolKeys of each live
	// connection whose browser said its instance id (browserKey).
	browserKeys map[*hostlink.Conn]string
	// orphans are the ended connections whose tools are still listed,
	// within their HostGrace, each with the timer that drops them.
	orphans map[*hostlink.Conn]*time.Timer
}

// New returns a Server with its bridge tools and no page tools yet: nothing
// is connected until [Server.Serve], [Server.Watch] or [Server.Connect].
func New(opts Options) *Server {
	if opts.Dir == "" {
		opts.Dir = endpoint.RuntimeDir()
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if os.Getenv(DebuggingToolsEnv) == "1" {
		opts.DebuggingTools = true
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		spill:  &spill.Spiller{Dir: opts.ResultDir, Threshold: opts.MaxResult},
		opts:   opts,
		log:    log,
		tools:  map[toolKey]*pageTool{},
		bridge: map[string]*BridgeTool{},
	}
	sdkLog := opts.SDKLogger
	if sdkLog == nil {
		sdkLog = log
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "WebMCP bridge", Version: opts.Version}, &mcp.ServerOptions{
		// The middleware replaces them with current ones at initialize.
		Instructions:       uicontext.Brief,
		Logger:             sdkLog,
		Capabilities:       &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{Subscribe: true}},
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	// The agent's middleware runs first: initialize's instructions wait
	// for the hosts, which by then have heard of the agent.
	s.mcp.AddReceivingMiddleware(s.agentMiddleware, s.instructionsMiddleware, s.callMiddleware)
	s.mcp.AddResource(uiContextResource(), s.readUIContext)
	var reserved []string
	for _, bt := range bridgeTools() {
		s.bridge[bt.Tool.Name] = bt
		reserved = append(reserved, bt.Tool.Name)
		s.mcp.AddTool(bt.Tool, s.bridgeHandler(bt))
	}
	s.names = toolnames.NewRegistry[toolKey](reserved...)
	s.agents.changed = func(list []protocol.AgentInfo) { s.pool.SetAgents(list) }
	s.pool = hostlink.NewPool(hostlink.PoolOptions{
		Dir:    opts.Dir,
		Client: protocol.ClientInfo{Name: Name, PID: os.Getpid()},
		Logger: log,
		OnChange: func(c *hostlink.Conn) {
			s.syncHost(c)
			s.changes.signal()
		},
		OnReady: func(*hostlink.Conn) { s.hostReady.signal() },
		OnClose: func(c *hostlink.Conn, err error) {
			s.dropHost(c, err)
			s.changes.signal()
		},
	})
	return s
}

// MCP is the underlying MCP server, for transports other than stdio.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Dir is the runtime directory the Server takes its hosts from.
func (s *Server) Dir() string { return s.opts.Dir }

// Serve watches for hosts and serves MCP over t until the client
// disconnects or ctx ends.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.Watch(ctx) })
	go func() {
		if n, err := s.spill.Clean(false); err != nil {
			s.log.Warn("cannot clean saved results", "err", err)
		} else if n > 0 {
			s.log.Info("removed saved results older than a day", "files", n)
		}
	}()
	err := s.mcp.Run(ctx, t)
	cancel()
	wg.Wait()
	// The agent went away, even in the middle of a notification
	// (tools/list_changed as it closed the pipe): a normal end.
	if errors.Is(err, context.Canceled) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// Watch keeps the Server connected to every host in the runtime directory
// until ctx ends, then disconnects: hosts that appear are connected and
// their tools exposed; hosts that go take their tools with them. Meanwhile
// it tells subscribers of UIContextURI when the UI context changes.
func (s *Server) Watch(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { s.watchUIContext(ctx) })
	s.pool.Watch(ctx)
	wg.Wait()
}

// Connect connects once to every host in the runtime directory and waits,
// at most wait, until each has sent its state, for one-shot commands. It
// returns warnings (sockets that could not be used, e.g. left behind by a
// host that crashed) and errors (hosts that did not answer in time, which
// are dropped). Calls on such a Server do not wait for a browser to
// connect (see BrowserWait): nothing would find it. Close the Server when
// done.
func (s *Server) Connect(ctx context.Context, wait time.Duration) (warnings, errs []error) {
	s.oneShot.Store(true)
	warnings = s.pool.Scan(ctx)
	errs = s.pool.WaitReady(ctx, wait)
	return warnings, errs
}

// Close disconnects from every host.
func (s *Server) Close() { s.pool.Close() }

// ErrNoTool is wrapped by CallTool's error for a name that no tool has.
var ErrNoTool = errors.New("no such tool")

// CallTool calls the tool that has the MCP name name, as an agent's
// tools/call would. It returns an error wrapping ErrNoTool if there is no
// such tool; every other failure is an isError result.
func (s *Server) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if bt, ok := s.bridge[name]; ok {
		return bt.Handler(ctx, s, args), nil
	}
	s.mu.Lock()
	key, ok := s.names.Lookup(name)
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoTool, name)
	}
	return s.callPage(ctx, key, name, args), nil
}

func (s *Server) bridgeHandler(bt *BridgeTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return bt.Handler(ctx, s, req.Params.Arguments), nil
	}
}
