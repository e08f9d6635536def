// Package host is webmcp-host, the native-messaging host of the WebMCP
// bridge: the browser starts it when the bridge extension connects, and it
// relays between the extension (Chrome native messaging on its stdin and
// stdout) and any number of webmcp-shim processes (newline-delimited JSON on
// a Unix socket in the runtime directory). The bridge protocol is described
// in package protocol.
//
// The host keeps the browser's latest state so that a new shim gets it at
// once, forwards each shim's calls and cancels to the browser without
// re-encoding them, routes each answer back to the shim that asked by the
// session prefix of its call id, cancels a shim's calls when it disconnects,
// and answers every call under way with "browser_gone" and exits when the
// browser closes its stdin.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// Default limits of a shim's outgoing queue: room for the largest message
// (protocol.MaxMessage, a result of protocol.MaxResult) and as much again
// behind it.
const (
	DefaultQueueLen   = 1024
	DefaultQueueBytes = 2 * protocol.MaxMessage
)

// DefaultMaxShims is how many shims may be connected to one host at once by
// default; each is an agent session or a CLI command of the user's.
const DefaultMaxShims = 256

// A shim's calls wait for more to join them in one message to the browser
// only under load: while HoldUnderLoad or more other calls are under way
// there; for DefaultHold at most (Options.Hold), and up to HoldMax calls.
const (
	DefaultHold   = 2 * time.Millisecond
	HoldUnderLoad = 4
	HoldMax       = 16
)

// drainTimeout bounds how long the host, when it exits, waits for a shim to
// take the last messages (the "browser_gone" answers).
const drainTimeout = 5 * time.Second

// Options configure [Run].
type Options struct {
	// Stdin and Stdout are the native-messaging link to the browser.
	// Required.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr receives the log, one line per event, each starting with
	// "webmcp-host: " after a time stamp. Once the socket is ready the host
	// logs "webmcp-host: listening on <socket>". Nil discards the log.
	Stderr io.Writer
	// Debug adds debug lines to the log.
	Debug bool
	// Origin is the caller that the browser passed (see [ParseArgs]): the
	// extension's origin from Chromium browsers, the add-on's ID from
	// Firefox; anything but protocol.ExtensionOrigin, protocol.FirefoxAddonID
	// and the origins of ExtensionIDs is refused.
	Origin string
	// ExtensionIDs are the extension IDs the host accepts beside the fixed
	// one: those a store gave the extension, which the install's record
	// lists (webmcp-host install --extension-id).
	ExtensionIDs []string
	// RuntimeDir is where the socket goes; empty means endpoint.RuntimeDir().
	RuntimeDir string
	// QueueLen and QueueBytes bound the messages waiting to be written to
	// one shim; a shim that falls further behind is disconnected. Zero
	// means DefaultQueueLen and DefaultQueueBytes.
	QueueLen   int
	QueueBytes int
	// MaxShims bounds the shims connected at once; a connection past it is
	// closed at once, before the hello, and logged. Zero means
	// DefaultMaxShims.
	MaxShims int
	// Hold is the longest that a shim's calls wait for more to join them
	// in one message to the browser, under load only: while HoldUnderLoad
	// or more other calls are under way there, and up to HoldMax calls. A
	// call with fewer under way goes at once. Zero means DefaultHold; a
	// negative Hold sends every call at once.
	Hold time.Duration
}

// host is the state of one running webmcp-host.
type host struct {
	log    *logger
	pid    int
	socket string

	qlen, qbytes int
	maxShims     int

	// sessionsMu keeps the lists of shims going to the browser in order.
	sessionsMu sync.Mutex

	// browserLink is the link to the browser: its frames, batches and chunks.
	browserLink *browserlink.Link
	// gathering is set while the browser's reader handles a message that
	// more of its batch follow, whose answers wait in gathered
	// (routeAnswer, sendGathered); its own.
	gathering bool
	gathered  []gathered
	sessionWG sync.WaitGroup

	mu          sync.Mutex
	state       protocol.State
	greeting    [][]byte          // the state's lines for a new shim (greet); nil: encode anew
	browser     *protocol.Browser // from the browser's hello; nil before it
	sessions    map[string]*session
	pending     map[string]*session // call id → the shim that asked
	gone        bool                // the browser link is gone: no new calls or shims
	nextSession int
}

// Run is webmcp-host: it checks the caller's origin, listens on its socket
// in the runtime directory and relays until the browser closes stdin (Run
// then returns nil) or ctx ends (nil as well). It returns an error when it
// cannot start or when the browser link fails (a malformed or oversized
// frame, a protocol version it does not speak). The socket is removed
// before Run returns. When Run returns because ctx ended, a read from Stdin
// may still be under way; a main that exits right after does not mind.
func Run(ctx context.Context, opts Options) error {
	if err := CheckOrigin(opts.Origin, opts.ExtensionIDs...); err != nil {
		return err
	}
	if opts.Stdin == nil || opts.Stdout == nil {
		return errors.New("host: Options.Stdin and Options.Stdout are required")
	}
	h := &host{
		log:      newLogger(opts.Stderr, opts.Debug),
		pid:      os.Getpid(),
		qlen:     opts.QueueLen,
		qbytes:   opts.QueueBytes,
		maxShims: opts.MaxShims,
		sessions: map[string]*session{},
		pending:  map[string]*session{},
	}
	if h.qlen <= 0 {
		h.qlen = DefaultQueueLen
	}
	if h.qbytes <= 0 {
		h.qbytes = DefaultQueueBytes
	}
	if h.maxShims <= 0 {
		h.maxShims = DefaultMaxShims
	}
	hold := opts.Hold // negative: calls never wait
	if hold == 0 {
		hold = DefaultHold
	}
	h.browserLink = browserlink.New(
		nativemsg.NewReader(opts.Stdin, protocol.MaxBrowserFrame),
		nativemsg.NewWriter(opts.Stdout, protocol.MaxHostFrame),
		browserlink.Options{
			Logf:      h.log.Printf,
			Debugf:    h.log.Debugf,
			MaxJoined: protocol.MaxMessage,
			Hold:      hold,
			HoldMax:   HoldMax,
			UnderLoad: h.underLoad,
		})
	dir := opts.RuntimeDir
	if dir == "" {
		dir = endpoint.RuntimeDir()
	}
	ln, err := listen(dir, h.pid, h.log)
	if err != nil {
		return err
	}
	h.socket = ln.Addr().String()

	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		h.acceptLoop(ln)
	}()
	browserDone := make(chan error, 1)
	go func() {
		browserDone <- h.readBrowser()
	}()
	h.sendHostHello()
	h.log.Printf("listening on %s", h.socket)

	select {
	case err = <-browserDone:
		if err == nil {
			h.log.Printf("the browser closed the connection; exiting")
		}
	case <-ctx.Done():
		h.log.Printf("stopping: %v", context.Cause(ctx))
	}
	h.shutdown(ln, acceptDone)
	return err
}

// CheckOrigin refuses every caller but the bridge extension: its origin
// (Chromium browsers), the origin of one of extraIDs (the IDs a store gave
// it, which the install lists) or its add-on ID (Firefox).
func CheckOrigin(origin string, extraIDs ...string) error {
	if origin == protocol.ExtensionOrigin || origin == protocol.FirefoxAddonID {
		return nil
	}
	for _, id := range extraIDs {
		if id != "" && origin == "chrome-extension://"+id+"/" {
			return nil
		}
	}
	if origin == "" {
		return fmt.Errorf("no caller: webmcp-host is started by the browser when the WebMCP bridge extension connects, with the extension's origin (%s) as first argument, or in Firefox the manifest's path and the add-on's ID (%s); it is not meant to be run by hand (see --help)", protocol.ExtensionOrigin, protocol.FirefoxAddonID)
	}
	return fmt.Errorf("refusing to serve %q: only the WebMCP bridge extension (%s, in Firefox %s, or an extension ID the install lists: webmcp-host install --extension-id ID, ./install.sh --extension-id ID) may start webmcp-host; check allowed_origins (allowed_extensions for Firefox) in the %s.json native-messaging manifest", origin, protocol.ExtensionOrigin, protocol.FirefoxAddonID, protocol.HostName)
}

// ParseArgs reads the command line that the browser passes and returns the
// caller in origin. Chromium browsers pass the caller's origin first (on
// Windows, Chrome adds --parent-window=N); Firefox passes the path of the
// native-messaging manifest, then the add-on's ID. Flags a browser may add
// are ignored. help reports -h or --help.
func ParseArgs(args []string) (origin string, help bool, err error) {
	var pos []string
	for _, a := range args {
		switch {
		case a == "-h" || a == "-help" || a == "--help":
			return "", true, nil
		case len(a) > 1 && a[0] == '-':
			// --parent-window=N and the like
		default:
			pos = append(pos, a)
		}
	}
	switch {
	case len(pos) == 0:
		return "", false, CheckOrigin("")
	case len(pos) >= 2 && strings.EqualFold(filepath.Ext(pos[0]), ".json"):
		// Firefox: the manifest's path, then the add-on's ID.
		return pos[1], false, nil
	}
	return pos[0], false, nil
}

// acceptLoop takes shim connections until ln is closed.
func (h *host) acceptLoop(ln net.Listener) {
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait a little
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			h.log.Printf("accepting a shim connection: %v; retrying in %v", err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		pid, err := endpoint.CheckPeer(c)
		if err != nil {
			h.log.Printf("refused a connection: %v", err)
			c.Close()
			continue
		}
		h.addSession(c, pid)
	}
}

// shutdown answers every call under way with browser_gone, removes the socket
// and lets each shim take its last messages before closing it.
func (h *host) shutdown(ln net.Listener, acceptDone <-chan struct{}) {
	h.mu.Lock()
	h.gone = true
	pending := h.pending
	h.pending = map[string]*session{}
	sessions := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()

	for id, s := range pending {
		s.send(errorLine(id, protocol.Errorf(protocol.CodeBrowserGone,
			"the browser disconnected from webmcp-host while the call was under way: reopen the browser with the WebMCP bridge extension and call again")))
	}
	if len(pending) > 0 {
		h.log.Printf("answered %d calls under way with browser_gone", len(pending))
	}
	if err := ln.Close(); err != nil { // also removes the socket file
		h.log.Printf("closing the socket: %v", err)
	}
	<-acceptDone
	deadline := time.Now().Add(drainTimeout)
	for _, s := range sessions {
		s.conn.SetWriteDeadline(deadline)
		s.closeQueue()
	}
	h.sessionWG.Wait()
}
