package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/hostlink"
	"github.com/webmcp-bridge/bridge/shim/results"
	"github.com/webmcp-bridge/bridge/shim/uicontext"
)

// SampleBudget bounds how long get_ui_context waits for a fresh sample of
// the UI context before it falls back to the latest one the browser sent.
const SampleBudget = 300 * time.Millisecond

// hostViews returns the connected hosts and their current states, in the
// order they were connected.
func (s *Server) hostViews() ([]*hostlink.Conn, []uicontext.Host) {
	conns := s.pool.Conns()
	views := make([]uicontext.Host, len(conns))
	for i, c := range conns {
		views[i] = uicontext.Host{Name: c.Name(), State: c.Snapshot()}
	}
	return conns, views
}

// UIContext returns the UI context of the focused tab (see
// uicontext.FindFocus for which tab that is when several browsers report
// one) and the pins of every browser. With sample > 0 it first asks the
// focused tab's browser for a fresh sample and waits at most that long;
// when none comes, the View holds the latest context the browser sent and
// says why in its Stale field.
func (s *Server) UIContext(ctx context.Context, sample time.Duration) *uicontext.View {
	conns, views := s.hostViews()
	var fresh *protocol.Context
	var freshHost uint64
	var stale string
	if sample > 0 && len(conns) > 0 {
		f, ok := uicontext.FindFocus(views)
		if !ok || f.Tab.Allowed {
			c := conns[0]
			params := json.RawMessage(`{}`)
			if ok {
				c = conns[f.Host]
				params = json.RawMessage(fmt.Sprintf(`{"tabId":%d}`, f.Tab.ID))
			}
			fresh, stale = s.sample(ctx, c, params, sample)
			freshHost = c.ID()
		}
		// The sample's broadcast may have changed the states.
		conns, views = s.hostViews()
	}

	f, ok := uicontext.FindFocus(views)
	if fresh != nil {
		for i, c := range conns {
			if c.ID() != freshHost {
				continue
			}
			switch {
			case ok && f.Host == i && f.Tab.ID == fresh.TabID:
				f.Context = fresh
			case !ok:
				// No browser marks a focused tab; the extension sampled
				// the one it deems focused.
				for _, t := range views[i].State.Tabs {
					if t.ID == fresh.TabID {
						f, ok = uicontext.Focus{Host: i, Tab: t, Context: fresh}, true
						if !t.Allowed {
							f.Context = nil
						}
					}
				}
			}
		}
	}
	var fp *uicontext.Focus
	if ok {
		fp = &f
	}
	v := uicontext.Build(views, fp)
	if v.Tab != nil && stale != "" {
		v.Stale = stale
	}
	return v
}

// sample asks c for a fresh sample of a tab's context, waiting at most
// budget. It returns the sample, or why there is none.
func (s *Server) sample(ctx context.Context, c *hostlink.Conn, params json.RawMessage, budget time.Duration) (*protocol.Context, string) {
	const latest = "; this is the latest context it sent"
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	out, err := c.Request(sctx, protocol.MethodSampleContext, params)
	var werr *protocol.Error
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, "the request was cancelled before a fresh sample came" + latest
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Sprintf("the browser gave no fresh sample within %s", results.Seconds(budget)) + latest
	case errors.As(err, &werr):
		return nil, fmt.Sprintf("the browser could not sample the context (%s: %s)", werr.Code, werr.Message) + latest
	default:
		return nil, fmt.Sprintf("sampling the context failed (%v)", err) + latest
	}
	var fresh protocol.Context
	if err := json.Unmarshal(out, &fresh); err != nil || fresh.TabID == 0 {
		s.log.Warn("the browser answered sampleContext with something that is not a context", "output", string(out), "err", err)
		return nil, "the browser's sample was malformed" + latest
	}
	return &fresh, ""
}
