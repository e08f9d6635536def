package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/schemas"
	"github.com/webmcp-bridge/bridge/shim/textcut"
)

// toolKey identifies a page tool across hosts and their restarts: the
// browser profile (its instance id), and the tool's tab, frame and page name
// there. A tool keeps its MCP name for as long as its tab and frame live:
// a host that restarts, or a connection that is made again, brings the same
// keys back, and retired names are never given to another key. A tool the
// page dropped gives its name back to its site (nameClass).
type toolKey struct {
	browser string
	ref     protocol.ToolRef
}

// browserKey names c's browser profile for toolKey: its instance id, or the
// connection itself while the browser has not said it. A browser that says
// the instance id of another that is connected now runs a copy of its
// profile (a user-data-dir copied with the extension's storage, as
// automation copies a template): its key names its connection too, so
// that the two browsers' tools stay apart, though their tabs may well have
// the same ids. (A host that restarts is gone before its next one
// connects: the next gets the instance's key, and its tools keep their
// names. The copy's next host gets one of its own, and new names.)
func (s *Server) browserKey(c *hostlink.Conn) string {
	b := c.Browser()
	if b == nil || b.Instance == "" {
		return "connection " + strconv.FormatUint(c.ID(), 10)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key, ok := s.browserKeys[c]; ok {
		return key
	}
	key := "instance " + b.Instance
	for other, k := range s.browserKeys {
		if k == key && other.Err() == nil {
			s.log.Warn("two connected browsers say they are the same profile: a copy of a profile's folder? Their tools are kept apart, "+
				"but the copy's get new names when its host restarts", "instance", b.Instance, "host", c.Host().PID, "other host", other.Host().PID)
			key += ", connection " + strconv.FormatUint(c.ID(), 10)
			break
		}
	}
	if s.browserKeys == nil {
		s.browserKeys = map[*hostlink.Conn]string{}
	}
	s.browserKeys[c] = key
	return key
}

// nameClass is who may hold t's MCP name (see toolnames.Registry): the
// same page name registered by a frame of the same origin.
func nameClass(t protocol.Tool) string { return t.Origin + "\n" + t.Name }

// pageTool is a page tool exposed as an MCP tool.
type pageTool struct {
	name      string // the MCP name
	conn      *hostlink.Conn
	tool      protocol.Tool
	tab       protocol.Tab
	mcpTool   *mcp.Tool
	sig       []byte             // the advertised tool without its name, to spot changes
	validator *schemas.Validator // nil: arguments go unchecked
	refused   string             // why the bridge refuses its inputSchema: calls fail
	// output checks the results of a tool that declares an outputSchema
	// the bridge advertises; nil: results go as they are.
	output *schemas.Validator
}

// syncHost brings the exposed tools of c's host in line with its state. It
// runs on c's reading goroutine after each change.
func (s *Server) syncHost(c *hostlink.Conn) {
	type wanted struct {
		key  toolKey
		tool protocol.Tool
		tab  protocol.Tab
	}
	var want []wanted
	alive := c.Err() == nil
	if alive {
		snap := c.Snapshot()
		allowed := map[int]protocol.Tab{}
		for _, t := range snap.Tabs {
			if t.Allowed {
				allowed[t.ID] = t
			}
		}
		browser := s.browserKey(c)
		for _, t := range snap.Tools { // sorted by tab, frame and name
			if isDebugging(t) && !s.opts.DebuggingTools {
				continue
			}
			if tab, ok := allowed[t.TabID]; ok {
				want = append(want, wanted{toolKey{browser, t.Ref()}, t, tab})
			}
		}
	}
	keep := map[toolKey]bool{}
	for _, w := range want {
		keep[w.key] = true
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !alive {
		delete(s.browserKeys, c) // another browser may say its instance now
		if s.keepOrphan(c) {
			return
		}
	}
	var gone []string
	for key, pt := range s.tools {
		if pt.conn == c && !keep[key] {
			gone = append(gone, pt.name)
			delete(s.tools, key)
			if alive {
				// The page dropped it (or its tab went): the name
				// goes back to the next tool of the same site and
				// page name, the app reopened.
				s.names.Release(key)
			} else {
				// Its host went: the tool may come back (a host
				// restart), and no other tool may take its name.
				s.names.Retire(key)
			}
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.mcp.RemoveTools(gone...)
	}
	added := 0
	defer func() {
		if added+len(gone) > 0 {
			s.log.Info("the agent's tool list changed", "host", c.ID(), "added", added, "removed", len(gone))
		}
	}()
	for _, w := range want {
		old := s.tools[w.key]
		// A tool of the same browser whose host went away and came back
		// (an orphan within its grace): the agent saw no change.
		adopt := old != nil && old.conn != c && old.conn.Err() != nil
		mine := old != nil && (old.conn == c || adopt)
		// Most of a change's tools are as they were: a page that registers
		// 2,000 tools one by one brings dozens of changes of up to 2,000.
		if mine && old.tab == w.tab && reflect.DeepEqual(old.tool, w.tool) {
			if adopt {
				s.adopt(w.key, old, c, w.tool, w.tab)
			}
			continue
		}
		mt, _, problem := describeTool(w.tool, w.tab)
		// The page's own schema is checked and resolved (once per distinct
		// schema): one the bridge refuses is advertised as any object,
		// with a note, and its calls fail.
		v, fresh, err := s.schemas.Get(w.tool.InputSchema)
		var rej *schemas.RejectedError
		refused := errors.As(err, &rej)
		if refused {
			refuse(mt, rej.Reason)
		}
		// A declared outputSchema is advertised and checks the results
		// when the bridge can use it; otherwise results go unchecked.
		var output *schemas.Validator
		out, why := schemas.ForOutput(w.tool.OutputSchema)
		if out != nil {
			if ov, _, oerr := s.schemas.Get(out); oerr != nil {
				why = oerr.Error()
			} else {
				mt.OutputSchema = out
				output = ov
			}
		}
		if why != "" && (old == nil || !bytes.Equal(old.tool.OutputSchema, w.tool.OutputSchema)) {
			s.pageWarn("leaving out a page tool's outputSchema; its results go unchecked", "tool", w.tool.Name, "tab", w.tab.ID, "reason", why)
		}
		sig, merr := json.Marshal(mt)
		if merr != nil {
			s.log.Warn("cannot encode a page tool; leaving it out", "tool", w.tool.Name, "tab", w.tab.ID, "err", merr)
			continue
		}
		if mine && bytes.Equal(old.sig, sig) {
			if adopt {
				s.adopt(w.key, old, c, w.tool, w.tab)
			}
			continue
		}
		pt := &pageTool{conn: c, tool: w.tool, tab: w.tab, mcpTool: mt, sig: sig, output: output}
		pt.name = s.names.Assign(w.key, w.tool.Name, nameClass(w.tool))
		mt.Name = pt.name
		switch {
		case refused:
			pt.refused = rej.Reason
			if fresh {
				s.pageWarn("refusing a page tool's inputSchema; the tool is listed with a note but cannot be called", "tool", pt.name, "tab", w.tab.ID, "origin", w.tool.Origin, "reason", rej.Reason)
			}
		case problem != "":
			if fresh {
				s.pageWarn("page tool schema unusable; its arguments go unchecked", "tool", pt.name, "problem", problem)
			}
		case err != nil:
			if fresh {
				s.pageWarn("cannot resolve a page tool's inputSchema; its arguments go unchecked", "tool", pt.name, "err", err)
			}
		default:
			pt.validator = v
		}
		s.addTool(w.key, pt) // may still change pt: publish it after
		added++
		s.tools[w.key] = pt
	}
}

// pageWarn logs a problem of a page's tool (its schema): a warning in the
// log of a server, once per distinct schema (the callers check), and a
// debug line in a one-shot command (Connect), whose stderr people and
// scripts read for their own command's trouble; the tool's description
// carries the note in both.
func (s *Server) pageWarn(msg string, args ...any) {
	level := slog.LevelWarn
	if s.oneShot.Load() {
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, msg, args...)
}

// TraceMetaKey is the _meta key of a tools/call that asks for the timing
// marks of every hop (any value), and of the result's marks: a list of
// {hop, at} (see protocol.Mark), "shim.in" first and "shim.done" last. A call
// that asks with protocol.OldTraceMeta is answered under that key.
const TraceMetaKey = protocol.MetaPrefix + "trace"

// traceKey is the _meta key under which a call asked for a trace, or "".
func traceKey(meta map[string]any) string {
	for _, k := range []string{TraceMetaKey, protocol.OldTraceMeta} {
		if _, ok := meta[k]; ok {
			return k
		}
	}
	return ""
}

// refusedNote ends the description of a tool whose inputSchema the bridge
// refuses.
const refusedNote = "(This tool cannot be called: the WebMCP bridge refuses its inputSchema: %s. The page must change the schema.)"

// refuse marks mt, the MCP tool of a page tool whose inputSchema the bridge
// refuses for reason: the schema advertised is any object (the page's own
// could trouble clients too), and the description says why calls fail.
func refuse(mt *mcp.Tool, reason string) {
	mt.InputSchema = schemas.Default
	mt.Description += " " + fmt.Sprintf(refusedNote, reason)
}

// takesResourceLinks reports whether the client of req speaks a protocol
// with resource links in tool results (2025-06-18 and later).
func takesResourceLinks(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2025-06-18"
}

// addTool adds pt to the MCP server (replacing a tool of the same name).
// The SDK panics on schemas it refuses (e.g. a malformed x-mcp-header); such
// a tool is exposed with the default schema instead, unchecked.
func (s *Server) addTool(key toolKey, pt *pageTool) {
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A call whose _meta asks for a trace gets the timing marks of
		// every hop in its result's _meta (the benchmark's per-hop profile).
		var trace *hostlink.Trace
		traceAt := traceKey(req.Params.GetMeta())
		if traceAt != "" {
			trace = &hostlink.Trace{Marks: []protocol.Mark{protocol.MarkNow("shim.in")}}
			ctx = hostlink.WithTrace(ctx, trace)
		}
		res := s.callPage(ctx, key, req.Params.Name, req.Params.Arguments)
		if trace != nil {
			if res.Meta == nil {
				res.Meta = mcp.Meta{}
			}
			res.Meta[traceAt] = append(trace.Marks, protocol.MarkNow("shim.done"))
		}
		// A result too big for the model's context goes to a file.
		return s.spill.Apply(res, req.Params.Name, takesResourceLinks(req)), nil
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Warn("the MCP SDK refused a page tool's schema; exposing it with any-object arguments, unchecked", "tool", pt.name, "err", r)
			pt.mcpTool.InputSchema = schemas.Default
			pt.validator = nil
			s.mcp.AddTool(pt.mcpTool, h)
		}
	}()
	s.mcp.AddTool(pt.mcpTool, h)
}

// HostGrace is how long the tools of a browser whose host went away stay
// listed: the browser restarts its host whenever the extension's service
// worker restarts (an update, a reload), and a restarted host is back
// within a second here (docs/limits.md, "What survives what"). If the same browser
// comes back within it, the agent sees no change at all: no list_changed,
// the same names, and calls made meanwhile wait for it (callPage). If it
// does not, its tools go with one list_changed.
const HostGrace = 5 * time.Second

// keepOrphan keeps the tools of c, a connection that ended, listed for
// its browser's grace, and reports whether it did: not for a browser that
// never said which it is (nothing could come back as it), nor when
// Options.HostGrace is negative. s.mu is held.
func (s *Server) keepOrphan(c *hostlink.Conn) bool {
	grace := s.hostGrace()
	if b := c.Browser(); grace < 0 || b == nil || b.Instance == "" {
		return false
	}
	if _, ok := s.orphans[c]; ok {
		return true
	}
	if s.orphans == nil {
		s.orphans = map[*hostlink.Conn]*time.Timer{}
	}
	s.orphans[c] = time.AfterFunc(grace, func() { s.endGrace(c) })
	return true
}

// hostGrace is Options.HostGrace, or HostGrace when it is 0.
func (s *Server) hostGrace() time.Duration {
	if s.opts.HostGrace == 0 {
		return HostGrace
	}
	return s.opts.HostGrace
}

// endGrace drops the tools of c that no new connection of the same
// browser took over within the grace. Their names stay theirs (retired):
// the browser may still come back.
func (s *Server) endGrace(c *hostlink.Conn) {
	s.mu.Lock()
	delete(s.orphans, c)
	var gone []string
	for key, pt := range s.tools {
		if pt.conn == c {
			gone = append(gone, pt.name)
			delete(s.tools, key)
			s.names.Retire(key)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.mcp.RemoveTools(gone...)
		s.log.Info("the browser did not come back; its tools are gone", "tools", len(gone))
	}
	s.mu.Unlock()
	s.changes.signal() // calls waiting for these tools end
}

// adopt moves an orphan (a tool of an ended connection, within its grace)
// to c, the new connection of its browser, as it is now; the MCP tool is
// unchanged, so the agent hears nothing. s.mu is held.
func (s *Server) adopt(key toolKey, old *pageTool, c *hostlink.Conn, tool protocol.Tool, tab protocol.Tab) {
	pt := *old
	pt.conn, pt.tool, pt.tab = c, tool, tab
	s.tools[key] = &pt
}

// dropHost removes the tools of a host whose connection ended. Its pending
// calls have already been answered by the connection.
func (s *Server) dropHost(c *hostlink.Conn, err error) {
	s.syncHost(c) // c.Err() is set: nothing is wanted
}

// describeTool builds the MCP tool (without its name) for a page tool of
// tab, and returns the schema to validate against (problem says why there
// is none).
func describeTool(t protocol.Tool, tab protocol.Tab) (mt *mcp.Tool, schema json.RawMessage, problem string) {
	schema, problem = schemas.ForMCP(t.InputSchema)
	t.Title = capTitle(t.Title)
	mt = &mcp.Tool{
		Title:       t.Title,
		Description: Description(t, tab),
		InputSchema: schema,
		Annotations: annotations(t),
	}
	// MCP has no annotation for WebMCP's untrustedContentHint: its label
	// says it in the description, which every client shows the model, and
	// _meta keeps the page's word.
	if isUntrusted(t) {
		mt.Meta = mcp.Meta{UntrustedContentMeta: true}
	}
	// Nor for consequentialHint: destructiveHint says part of it (see
	// annotations), the provenance says "consequential", and _meta keeps
	// the page's own word.
	if isConsequential(t) {
		if mt.Meta == nil {
			mt.Meta = mcp.Meta{}
		}
		mt.Meta[ConsequentialMeta] = true
	}
	return mt, schema, problem
}

// The caps on what a page says about a tool. Both are counted in bytes of
// UTF-8 and cut at a character boundary with a visible mark; what the
// bridge adds (the provenance, its notes) comes on top.
const (
	// MaxToolDescription is the most of a page tool's description that
	// reaches agents. A longer one ends with a note of the cut
	// (descriptionCut), within the cap.
	MaxToolDescription = 8 << 10
	// MaxToolTitle is the longest page tool title that reaches agents. A
	// longer one is cut and ends with "…", within the cap.
	MaxToolTitle = 256
)

// descriptionCut ends a description cut at MaxToolDescription.
const descriptionCut = "… [cut by the WebMCP bridge: the page's description is %d bytes; the first %d are shown]"

// capDescription cuts d to MaxToolDescription bytes, the mark included.
func capDescription(d string) string {
	if len(d) <= MaxToolDescription {
		return d
	}
	mark := fmt.Sprintf(descriptionCut, len(d), MaxToolDescription)
	keep := cutUTF8(d, MaxToolDescription-len(mark))
	return d[:keep] + fmt.Sprintf(descriptionCut, len(d), keep)
}

// capTitle cuts t to MaxToolTitle bytes, the "…" included.
func capTitle(t string) string {
	if len(t) <= MaxToolTitle {
		return t
	}
	return t[:cutUTF8(t, MaxToolTitle-len("…"))] + "…"
}

// cutUTF8 returns the largest n <= max at which s can be cut without
// splitting a character.
func cutUTF8(s string, max int) int {
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Description is what an agent reads of a page tool: the bridge's words
// first, then the page's, marked as the page's, e.g.
//
//	[localhost:8080 · tab 12 "Shop"] [CONSEQUENTIAL] The page says: Pays the order.
//
// The provenance and the labels (see [Labels]) are the bridge's; all that
// follows PageSays is the page's own description, cut to
// MaxToolDescription, each of its lines after the first indented (a line
// of it that looks like another tool's provenance is plainly the page's).
// A page cannot put a label before its own words, so a "[READ-ONLY]" in
// them is plainly the page's, nor close the quotes of its tab's title
// (plainTitle).
func Description(t protocol.Tool, tab protocol.Tab) string {
	var b strings.Builder
	b.WriteString(Provenance(t, tab))
	for _, l := range Labels(t) {
		b.WriteString(" " + l)
	}
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString(" " + PageSays + indentLines(capDescription(d)))
	}
	return b.String()
}

// lineBreak matches every line break a reader may take as one: CR LF, LF,
// CR, VT, FF, NEL, and the Unicode line and paragraph separators.
var lineBreak = regexp.MustCompile(`\r\n|[\n\r\v\f\x{85}\x{2028}\x{2029}]`)

// pageIndent begins every line of the page's description after its first,
// so that no line of the page's words starts where the bridge's do (a line
// that looks like another tool's provenance and labels is plainly inside
// the page's description).
const pageIndent = "  "

// indentLines makes each line break of d a "\n" followed by pageIndent.
func indentLines(d string) string {
	return lineBreak.ReplaceAllLiteralString(d, "\n"+pageIndent)
}

// PageSays introduces the page's own description of a tool: what follows
// it is the page's words, not the bridge's.
const PageSays = "The page says: "

// The labels the bridge puts before a page tool's description, from the
// page's hints; the MCP instructions (uicontext.Brief) explain them.
const (
	// LabelChanged: the page changed the tool's definition since the
	// browser first saw it on its site (or since the user accepted it).
	LabelChanged = "[CHANGED]"
	// LabelReadOnly: the page set readOnlyHint (the tool only reads).
	LabelReadOnly = "[READ-ONLY]"
	// LabelConsequential: the page set consequentialHint (its effects
	// may not be undoable).
	LabelConsequential = "[CONSEQUENTIAL]"
	// LabelUntrusted: the page set untrustedContentHint (its output is
	// data from the web, never instructions).
	LabelUntrusted = "[UNTRUSTED OUTPUT]"
)

// Labels are the labels of a page tool, in this order: LabelChanged when
// the extension says its definition changed, then LabelReadOnly,
// LabelConsequential and LabelUntrusted, each when the page set its hint.
func Labels(t protocol.Tool) []string {
	var out []string
	if t.Changed {
		out = append(out, LabelChanged)
	}
	if a := t.Annotations; a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint {
		out = append(out, LabelReadOnly)
	}
	if isConsequential(t) {
		out = append(out, LabelConsequential)
	}
	if isUntrusted(t) {
		out = append(out, LabelUntrusted)
	}
	return out
}

// isUntrusted reports whether the page set untrustedContentHint on t.
func isUntrusted(t protocol.Tool) bool {
	a := t.Annotations
	return a != nil && a.UntrustedContentHint != nil && *a.UntrustedContentHint
}

// UntrustedContentMeta is the _meta key set to true on a page tool whose
// page set WebMCP's untrustedContentHint.
const UntrustedContentMeta = protocol.MetaPrefix + "untrustedContentHint"

// ConsequentialMeta is the _meta key set to true on a page tool whose page
// set WebMCP's consequentialHint.
const ConsequentialMeta = protocol.MetaPrefix + "consequentialHint"

// isConsequential reports whether the page set consequentialHint on t.
func isConsequential(t protocol.Tool) bool {
	a := t.Annotations
	return a != nil && a.ConsequentialHint != nil && *a.ConsequentialHint
}

// isDebugging reports whether the page marked t as a debugging tool
// (annotations.debugging), listed only with Options.DebuggingTools.
func isDebugging(t protocol.Tool) bool {
	a := t.Annotations
	return a != nil && a.Debugging != nil && *a.Debugging
}

// annotations are a page tool's hints in MCP's words, as the page declared
// them: readOnlyHint, destructiveHint, idempotentHint and openWorldHint as
// given; destructiveHint true for a tool whose page set consequentialHint
// and left destructiveHint unset (WebMCP's word for it); the page's title.
// Hints the page left unset stay unset, for the client to apply MCP's
// defaults (destructiveHint true, openWorldHint true); nil when the page
// declared none of them. (The SDK writes readOnlyHint and idempotentHint
// whenever there are annotations, false when unset: MCP's default.)
func annotations(t protocol.Tool) *mcp.ToolAnnotations {
	a := t.Annotations
	if a == nil {
		a = &protocol.Annotations{}
	}
	out := &mcp.ToolAnnotations{Title: t.Title}
	set := t.Title != ""
	if a.ReadOnlyHint != nil {
		out.ReadOnlyHint = *a.ReadOnlyHint
		set = true
	}
	switch {
	case a.DestructiveHint != nil:
		v := *a.DestructiveHint
		out.DestructiveHint = &v
		set = true
	case isConsequential(t):
		v := true
		out.DestructiveHint = &v
		set = true
	}
	if a.IdempotentHint != nil {
		out.IdempotentHint = *a.IdempotentHint
		set = true
	}
	if a.OpenWorldHint != nil {
		v := *a.OpenWorldHint
		out.OpenWorldHint = &v
		set = true
	}
	if !set {
		return nil
	}
	return out
}

// maxTitle is the longest tab title quoted in a provenance.
const maxTitle = 40

// Provenance says in a few words where a page tool comes from, e.g.
// [localhost:8080 · tab 12 "Trace viewer"]. The origin is the registering
// frame's (the tab's if the tool does not say), without its scheme; a tool
// of a subframe names the frame too.
func Provenance(t protocol.Tool, tab protocol.Tab) string {
	origin := t.Origin
	if origin == "" {
		origin = tab.Origin
	}
	origin = displayOrigin(origin)
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(origin)
	fmt.Fprintf(&b, " · tab %d", t.TabID)
	if t.FrameID != 0 {
		fmt.Fprintf(&b, " frame %d", t.FrameID)
	}
	if title := textcut.Runes(plainTitle(tab.Title), maxTitle); title != "" {
		b.WriteString(` "` + title + `"`)
	}
	b.WriteString("]")
	return b.String()
}

// plainTitle is a tab title as a provenance quotes it: with no bracket,
// quotation mark, line break or other control or format character (each
// becomes a space), so that the page's title cannot close the bridge's
// quotes or brackets and write labels after them; runs of white space
// become one space, none at either end.
func plainTitle(title string) string {
	return strings.Join(strings.FieldsFunc(title, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(titleStripped, r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
	}), " ")
}

// titleStripped are the brackets and quotation marks a tab title loses:
// ASCII's, and their look-alikes.
const titleStripped = "[]\"“”„‟［］＂"

func displayOrigin(origin string) string {
	if origin == "" || origin == "null" {
		return "unknown origin"
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		return u.Host
	}
	return origin
}
