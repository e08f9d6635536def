package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// ErrNoBrowser is returned by Pin and Unpin when no browser is connected.
var ErrNoBrowser = errors.New(results.NoBrowser)

// ErrNoFocus is returned by Pin when no connected browser names the tab the
// user is looking at.
var ErrNoFocus = errors.New("no browser says which tab you are looking at: click into the page's tab (a site the extension allows) and run the command again; webmcp-shim status lists the tabs")

// Pins returns the pinned snapshots of every connected browser, as agents
// see them (data cut to size).
func (s *Server) Pins() []uicontext.Pinned {
	_, views := s.hostViews()
	return uicontext.Build(views, nil).Pinned
}

// Pin asks the browser of the focused tab to freeze the current snapshot of
// the context provider providerID, and returns the new pin. Failures are
// ErrNoBrowser, ErrNoFocus, the extension's *protocol.Error (e.g. an unknown provider,
// with the ids it knows), or errors that say what to do.
func (s *Server) Pin(ctx context.Context, providerID string) (*protocol.Pin, error) {
	conns, views := s.hostViews()
	if len(conns) == 0 {
		return nil, ErrNoBrowser
	}
	f, ok := uicontext.FindFocus(views)
	if !ok {
		return nil, ErrNoFocus
	}
	if !f.Tab.Allowed {
		return nil, errors.New("the focused tab's site is not allowed: allow it in the WebMCP bridge extension first, or focus another tab")
	}
	c := conns[f.Host]
	params := map[string]any{"providerId": providerID, "tabId": f.Tab.ID}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	out, err := c.Request(ctx, protocol.MethodPin, b)
	if err != nil {
		return nil, err
	}
	var pin protocol.Pin
	if err := json.Unmarshal(out, &pin); err != nil {
		return nil, fmt.Errorf("the browser answered the pin request with something that is not a pin (%v): %.200s", err, out)
	}
	return &pin, nil
}

// Unpin asks every connected browser to drop its pins of providerID ("":
// all pins) and returns how many went. It fails only when no browser could
// be asked, or every browser failed.
func (s *Server) Unpin(ctx context.Context, providerID string) (removed int, err error) {
	conns, _ := s.hostViews()
	if len(conns) == 0 {
		return 0, ErrNoBrowser
	}
	params := json.RawMessage(`{}`)
	if providerID != "" {
		b, err := json.Marshal(map[string]string{"providerId": providerID})
		if err != nil {
			return 0, err
		}
		params = b
	}
	var errs []error
	for _, c := range conns {
		out, err := c.Request(ctx, protocol.MethodUnpin, params)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var r struct {
			Removed int `json:"removed"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			errs = append(errs, fmt.Errorf("the browser answered the unpin request with %.200s (%v)", out, err))
			continue
		}
		removed += r.Removed
	}
	if len(errs) == len(conns) {
		return 0, errors.Join(errs...)
	}
	return removed, nil
}
