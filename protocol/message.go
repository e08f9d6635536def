package protocol

import (
	"encoding/json"
	"fmt"
	"time"
)

// ProtocolVersion is the version of the bridge protocol that this package
// speaks. Peers with another version are refused with a log line.
const ProtocolVersion = 1

// MaxHostFrame is the largest frame the host may send to the browser: Chrome
// closes the native port on a bigger one. Larger messages go as chunks.
const MaxHostFrame = 1 << 20

// MaxBrowserFrame is the largest frame the host accepts from the browser
// (Chrome's own limit for that direction); anything larger is refused before
// it is allocated.
const MaxBrowserFrame = 64 << 20

// MaxResult is the largest output of a tool call that the bridge carries:
// 64 MiB of UTF-8 JSON text, as the page's result encodes. A bigger result
// never leaves the page's frame: the extension answers the call with
// [CodeTooLarge] instead (the page's tool ran).
const MaxResult = 64 << 20

// MaxArguments is the largest arguments of one tool call that the bridge
// carries: 63 MiB of JSON, which leaves room for the call's envelope in the
// longest line the host takes from a shim ([MaxBrowserFrame]). The shim
// refuses a call with bigger arguments itself, with [CodeTooLarge]; it never
// reaches the host or the page.
const MaxArguments = MaxBrowserFrame - 1<<20

// MaxMessage is the longest message the bridge carries whole: a result of
// [MaxResult] and room for its envelope. The host joins chunks from the
// browser up to it, and it bounds a line on the socket link both ways.
const MaxMessage = MaxResult + 1<<20

// MaxBrowserChunk is the most the extension puts in one frame to the host:
// a message whose JSON is longer goes as chunks of at most this many bytes,
// well under Chrome's own 64 MiB.
const MaxBrowserChunk = 32 << 20

// Message types.
const (
	TypeHello        = "hello"
	TypeState        = "state"
	TypeTabUpdated   = "tabUpdated"
	TypeTabRemoved   = "tabRemoved"
	TypeToolsAdded   = "toolsAdded"
	TypeToolsRemoved = "toolsRemoved"
	TypeContext      = "context"
	TypePins         = "pins"
	TypeCall         = "call"
	TypeCancel       = "cancel"
	TypeRequest      = "request"
	TypeResult       = "result"
	TypeError        = "error"
	TypeChunk        = "chunk"
	TypeClient       = "client"
	TypeSessions     = "sessions"
	TypeBatch        = "batch"
)

// Request methods: what a shim may ask the extension besides tool calls.
const (
	// MethodSampleContext samples the UI context of a tab now. Params:
	// {"tabId":N} or {} for the focused tab. Output: a [Context], which is
	// also broadcast as a context message.
	MethodSampleContext = "sampleContext"
	// MethodPin freezes a provider's current snapshot. Params:
	// {"providerId":"…","tabId":N} (tabId optional: the focused tab).
	// Output: the new [Pin]; the pins list is broadcast.
	MethodPin = "pin"
	// MethodUnpin drops pins. Params: {"providerId":"…"}, or {} for all.
	// Output: {"removed":N}; the pins list is broadcast.
	MethodUnpin = "unpin"
	// MethodOpenPage opens an http(s) URL in a new tab of the last focused
	// window (never an existing tab), after the user's consent unless its
	// site is allowed, and waits (bounded) for its tools. Params:
	// {"url":"…","background":false}. Output: {"tabId":N,"url":"…",
	// "title":"…","tools":["page tool name",…]}.
	MethodOpenPage = "openPage"
	// MethodFocusTab brings a tab of an allowed site to the front. Params:
	// {"tabId":N}. Output: {"tabId":N}.
	MethodFocusTab = "focusTab"
	// MethodCloseTab closes a tab that openPage opened for the same agent.
	// Params: {"tabId":N}. Output: {"tabId":N}.
	MethodCloseTab = "closeTab"
	// MethodContextTools lists the page tools of a tab that can be sampled
	// as UI context (read-only, no required argument). Params: {"tabId":N}
	// or {} for the focused tab. Output: {"tabId":N,"tools":[{"name":"…",
	// "frameId":N,"origin":"…","state":"on"|"off"|"changed","offered":bool}]}
	// (offered: the page names it get_ui_context; changed: turned on for a
	// definition the page has since changed, so not sampled).
	MethodContextTools = "contextTools"
	// MethodSetContextTool turns a page tool on or off as UI context, as the
	// person's choice (the local CLI's; no MCP tool sends it). Params:
	// {"name":"page tool name","on":true,"tabId":N,"frameId":N} (tabId
	// optional: the focused tab; frameId optional when one frame has the
	// tool). Output: {"name":"…","state":"on"|"off"}.
	MethodSetContextTool = "setContextTool"
	// MethodSiteAccess says which sites the extension may reach, for
	// doctor. Params: {}. Output: {"allowed":["origin pattern",…],
	// "withheld":["match pattern",…]}: withheld lists the sites the
	// extension asks for at install (the loopback ones) that the browser
	// does not grant it now (the user set its site access to "on click" or
	// "on specific sites", or the browser grants none until asked).
	MethodSiteAccess = "siteAccess"
)

// SiteAccess is the output of a siteAccess request.
type SiteAccess struct {
	Allowed  []string `json:"allowed"`
	Withheld []string `json:"withheld"`
}

// ContextTool is one entry of a contextTools output.
type ContextTool struct {
	Name    string `json:"name"`
	FrameID int    `json:"frameId"`
	Origin  string `json:"origin"`
	State   string `json:"state"`
	Offered bool   `json:"offered,omitempty"`
}

// OpenPageAnswer is the browser's answer to an openPage request (the shim's OpenedPage adds what it learnt).
type OpenPageAnswer struct {
	TabID int      `json:"tabId"`
	URL   string   `json:"url"`
	Title string   `json:"title"`
	Tools []string `json:"tools"`
}

// Error codes carried in [Error.Code].
const (
	CodeToolError   = "tool_error"   // the page's tool threw or rejected
	CodeNotFound    = "not_found"    // no such tab, frame or tool (any more)
	CodeTabClosed   = "tab_closed"   // the tab closed while the call ran
	CodeNavigated   = "navigated"    // the frame navigated away while the call ran
	CodeCancelled   = "cancelled"    // the caller cancelled the call
	CodeTimeout     = "timeout"      // the call ran out of time
	CodeBadRequest  = "bad_request"  // the message was malformed or misrouted
	CodeNoBrowser   = "no_browser"   // no browser is connected to the host; the call did not reach one
	CodeBrowserGone = "browser_gone" // the browser disconnected while the call ran: it may have run
	CodeNotAllowed  = "not_allowed"  // the site is not on the user's allow list
	CodeDeclined    = "declined"     // the user declined the call (or did not answer in time); the page's tool did not run
	CodeTooLarge    = "too_large"    // the page's result is over MaxResult; the page's tool ran
	CodeBlocked     = "blocked"      // the page is blocked (an alert, confirm or prompt is open); the call did not reach it
	CodeInternal    = "internal"     // a bug in the bridge
)

// Message is one bridge protocol message. Type says which of the other fields
// are set; see the package documentation for each type's fields.
//
// Message decodes every type (a receiver needs one struct to read any
// message). It encodes per type (see [Message.MarshalJSON]): exactly the
// fields of its type, the required ones even when they are zero, so that a
// call to the top frame says "frameId":0 and an empty pins list says
// "pins":[]. The omitempty tags below only apply to a type this package
// does not know.
type Message struct {
	Type string `json:"type"`
	// ID identifies a call (call, cancel, result, error) or a chunked
	// message (chunk).
	ID string `json:"id,omitempty"`

	// hello
	Protocol int         `json:"protocol,omitempty"`
	Browser  *Browser    `json:"browser,omitempty"`
	Host     *HostInfo   `json:"host,omitempty"`
	Client   *ClientInfo `json:"client,omitempty"`
	Session  string      `json:"session,omitempty"`

	// state and changes
	State   *Snapshot `json:"state,omitempty"`
	Tab     *Tab      `json:"tab,omitempty"`
	Tools   []Tool    `json:"tools,omitempty"`
	Removed []ToolRef `json:"removed,omitempty"`
	Context *Context  `json:"context,omitempty"`
	Pins    []Pin     `json:"pins,omitempty"`

	// call: TabID, FrameID and Name name the tool; tabRemoved uses TabID.
	TabID     int             `json:"tabId,omitempty"`
	FrameID   int             `json:"frameId,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Agent (call and request, optional) is the id of the agent (an
	// [AgentInfo] of the shim's client message) the shim sends it for;
	// absent for the CLI's commands.
	Agent string `json:"agent,omitempty"`
	// Timeout (call, optional) is how many milliseconds the caller waits
	// for the answer; the extension answers a call still waiting for the
	// user's consent before then (declined), so that the caller hears why.
	Timeout int `json:"timeout,omitempty"`

	// request: Method is one of the Method constants; Params its object.
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`

	// Trace (call, result, error; optional) is the timing marks of a call
	// that its caller asked to trace: each hop that carries the call or its
	// answer adds one (see [Mark]). Absent for every other call.
	Trace []Mark `json:"trace,omitempty"`

	// result
	Output json.RawMessage `json:"output,omitempty"`
	// error
	Error *Error `json:"error,omitempty"`

	// sessions
	Sessions []Session `json:"sessions,omitempty"`

	// chunk
	Seq  int    `json:"seq,omitempty"`
	Last bool   `json:"last,omitempty"`
	Data string `json:"data,omitempty"`

	// batch: whole messages, in order
	Messages []json.RawMessage `json:"messages,omitempty"`
}

// Mark is one timing mark of a traced call: the hop that carried it
// ("shim.in", "host.in", "worker.in", …) and when, in milliseconds since the
// Unix epoch with the fraction the clock gives (the processes share one
// machine's clock).
type Mark struct {
	Hop string  `json:"hop"`
	At  float64 `json:"at"`
}

// MarkNow returns the mark of hop at this moment.
func MarkNow(hop string) Mark {
	return Mark{Hop: hop, At: float64(time.Now().UnixMicro()) / 1000}
}

// Browser identifies the browser profile behind a host.
type Browser struct {
	Name    string `json:"name,omitempty"`    // "Chromium", "Chrome", "Edge", …
	Version string `json:"version,omitempty"` // the browser's version
	// Instance is a random id that the extension keeps for its profile, so
	// that two hosts of the same profile can be told from two profiles.
	Instance    string `json:"instance,omitempty"`
	ExtensionID string `json:"extensionId,omitempty"`
	// ExtensionVersion is the bridge extension's version (its manifest's),
	// so that doctor can tell a stale extension from the installed one.
	ExtensionVersion string `json:"extensionVersion,omitempty"`
	// Batch says that the extension takes batch messages from the host
	// (an extension older than batches leaves it out).
	Batch bool `json:"batch,omitempty"`
}

// HostInfo describes a webmcp-host process to its shims.
type HostInfo struct {
	PID    int    `json:"pid"`
	Socket string `json:"socket,omitempty"`
	// Version is the host's release version (package internal/version);
	// empty from a host older than this field. doctor compares it with
	// the shim's own, to tell a host still running from before an update.
	Version string `json:"version,omitempty"`
	// Batch says that the host takes batch messages from the extension
	// (a host older than batches leaves it out).
	Batch bool `json:"batch,omitempty"`
}

// ClientInfo describes a shim (or another client) to its host.
type ClientInfo struct {
	Name string `json:"name"`
	PID  int    `json:"pid,omitempty"`
	// Agents are the MCP clients (MCP sessions) that the shim serves, as
	// they named themselves in MCP's initialize, oldest first: one for a
	// shim on stdio, any number for a shim serving HTTP. Absent before the
	// first initialize, and for the CLI's one-shot commands.
	Agents []AgentInfo `json:"agents,omitempty"`
}

// AgentInfo names an MCP client (an agent) of a shim: "claude-code",
// "2.1.0", and the id that the shim's calls and requests on its behalf
// carry (see Message.Agent).
type AgentInfo struct {
	// ID tells the shim's MCP sessions apart ("a1", "a2", …); it is
	// unique within the shim for the shim's life.
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Session is one shim connected to a host, as the host tells the
// extension: the session id that prefixes its call ids, and what it said
// about itself.
type Session struct {
	ID     string     `json:"session"`
	Client ClientInfo `json:"client"`
}

// Error is the payload of an error message.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Ran is set on a "navigated" error that the page's frame itself
	// answered: the call ran and its own action navigated the page (a
	// declarative form's submission). Without it, "navigated" means that
	// the frame went away while the call ran, which may or may not have
	// run.
	Ran bool `json:"ran,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds an error payload.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
