package shim

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UIContextURI is the resource with the UI context of the focused tab.
const UIContextURI = "webmcp://ui-context"

// notifyDelay is how long the shim lets changes settle before it tells
// subscribers that the UI context changed: a burst of changes (a click
// that updates several providers) is one notification.
const notifyDelay = 10 * time.Millisecond

// uiContextResource describes the resource.
func uiContextResource() *mcp.Resource {
	return &mcp.Resource{
		URI:   UIContextURI,
		Name:  "ui-context",
		Title: "UI context of the focused browser tab",
		Description: "What the user is looking at in their browser, as JSON: the focused tab, its context providers' reports, ambient context " +
			"and pinned snapshots (the same as the get_ui_context tool, without asking the page for a fresh sample). " +
			"Subscribe to be told when it changes.",
		MIMEType: "application/json",
	}
}

// readUIContext answers resources/read for UIContextURI.
func (s *Server) readUIContext(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(s.UIContext(ctx, 0))
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: UIContextURI, MIMEType: "application/json", Text: string(b)}}}, nil
}

// subscribe and unsubscribe accept only UIContextURI; the SDK keeps the
// subscriptions.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != UIContextURI {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI != UIContextURI {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

// uiContextKey is the resource's content without what changes at every
// sample, to tell real changes.
func (s *Server) uiContextKey(ctx context.Context) string {
	v := s.UIContext(ctx, 0)
	v.SampledAt, v.Stale = "", ""
	b, _ := json.Marshal(v)
	return string(b)
}

// watchUIContext sends notifications/resources/updated for UIContextURI
// whenever the focused tab, its context or the pins change, until ctx
// ends. Changes are compared on the rendered JSON, after notifyDelay to
// let a burst settle.
func (s *Server) watchUIContext(ctx context.Context) {
	ch := s.changes.wait()
	last := s.uiContextKey(ctx)
	for {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		t := time.NewTimer(notifyDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		ch = s.changes.wait()
		if key := s.uiContextKey(ctx); key != last {
			last = key
			s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: UIContextURI})
		}
	}
}
