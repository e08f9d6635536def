package shim

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/schemas"
)

// maxArguments is the largest arguments of a call the shim sends
// (protocol.MaxArguments; a test lowers it, so as not to move 63 MiB).
var maxArguments = protocol.MaxArguments

// callPage calls the page tool key, known to the agent as name. The
// arguments must be a JSON object within the bridge's limits; that they
// match the tool's schema is checked too, but a mismatch is only a note in
// the result (results.WithSchemaNote), since the browser's own agent sends such
// arguments to the page as they are (Chromium checks none of the schema).
// The call is bounded by the Server's timeout and cancelled in the page
// when ctx ends (the agent sent notifications/cancelled) or the time is
// up. Every outcome is a result; failures are isError results that say
// what to do.
func (s *Server) callPage(ctx context.Context, key toolKey, name string, args json.RawMessage) *mcp.CallToolResult {
	s.mu.Lock()
	pt := s.tools[key]
	s.mu.Unlock()
	if pt == nil {
		return results.Gone(name)
	}
	if pt.refused != "" {
		return results.Failure(results.CodeSchemaRefused, results.NotRun, "tool %s cannot be called: the WebMCP bridge refuses its inputSchema: %s. The page must change the schema", name, pt.refused)
	}

	args = protocol.ObjectOrEmpty(args)
	// Over the limit the host would drop the link (a line too long),
	// which the agent would take for a lost browser.
	if len(args) > maxArguments {
		return results.Failure(results.CodeTooLarge, results.NotRun,
			"tool %s: the arguments are %s of JSON (%d bytes), over the bridge's limit of %s (%d bytes). Send less data, e.g. a reference the page can resolve, or split the work into several calls",
			name, results.Size(len(args)), len(args), results.Size(maxArguments), maxArguments)
	}
	// One look at the arguments: the tool's validator, or, for a tool
	// without one, whether they are a JSON object.
	check := schemas.CheckObject
	if pt.validator != nil {
		check = pt.validator.Validate
	}
	err := check(args)
	var ve *schemas.ValidationError
	var lim *schemas.LimitError
	switch {
	case errors.As(err, &ve) && ve.NotObject:
		// Arguments that are not a JSON object never go: the browser's
		// executeTool refuses them too (a TypeError).
		return results.Failure(results.CodeInvalidArguments, results.NotRun, "invalid arguments for tool %s: %v. Send the arguments as a JSON object", name, err)
	case errors.As(err, &lim):
		return results.Failure(results.CodeTooLarge, results.NotRun, "tool %s: %v. Send smaller or less deeply nested arguments", name, err)
	case err != nil:
		// Chromium runs such a call (issue FID): so does the bridge,
		// and the result says what did not match.
		return results.WithSchemaNote(s.sendCall(ctx, key, name, pt, args), err.Error())
	}
	return s.sendCall(ctx, key, name, pt, args)
}

// sendCall sends the call of pt, the page tool key known to the agent as
// name, with args, checked, and gives its outcome.
func (s *Server) sendCall(ctx context.Context, key toolKey, name string, pt *pageTool, args json.RawMessage) *mcp.CallToolResult {
	// The call's --timeout counts from its arrival (callMiddleware), a
	// wait for a browser included.
	cctx, cancel := s.callContext(ctx)
	defer cancel()
	if pt.conn.Err() != nil {
		// Its host went away: within the browser's grace the same
		// browser may come back, and the call goes to it then.
		var res *mcp.CallToolResult
		if pt, res = s.awaitReturn(ctx, cctx, key, name, pt.conn); res != nil {
			return res
		}
	}
	// Where the tab is, to see where a call that navigates it leads.
	tab, _, _ := tabNow(pt.conn, pt.tool.TabID)
	out, err := pt.conn.Call(cctx, pt.tool.TabID, pt.tool.FrameID, pt.tool.Name, args)
	var werr *protocol.Error
	if errors.Is(err, hostlink.ErrNotSent) || errors.As(err, &werr) && werr.Code == protocol.CodeNoBrowser {
		// It never reached the page: its host was going away (it ended
		// as the call was sent, or its browser had left it). Once more,
		// to the browser's next host, if it comes within the grace.
		var res *mcp.CallToolResult
		if pt, res = s.awaitReturn(ctx, cctx, key, name, pt.conn); res != nil {
			return res
		}
		out, err = pt.conn.Call(cctx, pt.tool.TabID, pt.tool.FrameID, pt.tool.Name, args)
	}
	switch {
	case err == nil:
		res := results.FromOutput(out)
		if pt.output != nil {
			res = results.WithOutputSchema(name, res, pt.output.ValidateOutput)
		}
		return res
	case ctx.Err() != nil:
		return results.Cancelled()
	case errors.Is(err, context.DeadlineExceeded):
		return results.TimedOut(s.opts.Timeout)
	case errors.As(err, &werr) && werr.Code == protocol.CodeNavigated:
		// The call navigated the tab, or the tab navigated under it:
		// where it is now is what the agent needs.
		return s.navigatedResult(cctx, pt.conn, name, pt.tool.Ref(), tab.URL, werr, out)
	case errors.As(err, &werr):
		return results.FromError(name, werr)
	case errors.Is(err, hostlink.ErrClosed):
		return results.Disconnected(err)
	default:
		return results.Failure(protocol.CodeInternal, results.MaybeRan, "tool %s: %v", name, err)
	}
}

// awaitReturn waits until the tool key is served by another connection
// than gone, a live one: the same browser's next host took it over (the
// tool to call). It ends early, with a result to give, when the tool goes
// (its grace ended: HostGrace), when gone stays for a whole grace (a host
// that lives on without its browser), or when cctx ends.
func (s *Server) awaitReturn(ctx, cctx context.Context, key toolKey, name string, gone *hostlink.Conn) (*pageTool, *mcp.CallToolResult) {
	notBack := results.Failure(protocol.CodeBrowserGone, results.NotRun,
		"tool %s is not available: its browser went away and did not come back (the page did not run this call); if the browser is still open, reload the page or run webmcp-shim doctor", name)
	grace := time.NewTimer(s.hostGrace())
	defer grace.Stop()
	s.log.Debug("a call waits for its browser to come back", "tool", name)
	for {
		changed := s.changes.wait()
		s.mu.Lock()
		pt := s.tools[key]
		s.mu.Unlock()
		switch {
		case pt == nil:
			return nil, notBack
		case pt.conn != gone && pt.conn.Err() == nil:
			return pt, nil
		}
		select {
		case <-changed:
		case <-grace.C:
			return nil, notBack
		case <-cctx.Done():
			if ctx.Err() != nil {
				return nil, results.Cancelled()
			}
			return nil, results.Failure(protocol.CodeTimeout, results.NotRun,
				"tool %s timed out after %s waiting for its browser to come back; the page did not run this call", name, results.Seconds(s.opts.Timeout))
		}
	}
}
