package uicontext

import "github.com/webmcp-bridge/bridge/protocol"

// Host is one browser's state, as its webmcp-host reported it.
type Host struct {
	// Name names the host for people (its socket's file name).
	Name string
	// State is the host's current state.
	State *protocol.Snapshot
}

// Focus is the tab the user is looking at: the active tab of the last
// focused browser window.
type Focus struct {
	// Host is the index of the tab's host in the hosts given to FindFocus.
	Host int
	// Tab is the focused tab.
	Tab protocol.Tab
	// Context is the tab's latest UI context; nil when none has arrived
	// (and always nil for a tab whose site is not allowed).
	Context *protocol.Context
}

// FindFocus returns the tab that the browsers mark Focused. Each browser
// marks at most one; when several browsers do (two browsers, or two
// profiles, each with its own last focused window), the one whose context
// was sampled last wins, since the user is most likely working there, and
// among equals the first host (the one connected first). ok is false when
// no browser marks a focused tab.
func FindFocus(hosts []Host) (f Focus, ok bool) {
	var best int64 = -1
	for i, h := range hosts {
		if h.State == nil {
			continue
		}
		for _, t := range h.State.Tabs {
			if !t.Focused {
				continue
			}
			cand := Focus{Host: i, Tab: t}
			var at int64
			if t.Allowed {
				for _, c := range h.State.Contexts {
					if c.TabID == t.ID {
						c := c
						cand.Context = &c
						at = c.Time
						break
					}
				}
			}
			if at > best {
				f, ok, best = cand, true, at
			}
			break
		}
	}
	return f, ok
}
