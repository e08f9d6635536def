package shim

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/webmcp-bridge/bridge/protocol"
)

// HostSiteAccess is one browser's answer to a siteAccess request (or why
// there is none).
type HostSiteAccess struct {
	PID     int
	Browser *protocol.Browser
	Access  protocol.SiteAccess
	Err     error
}

// SiteAccess asks each connected browser's extension which sites it may
// reach, and which of those it asks for at install the browser withholds.
func (s *Server) SiteAccess(ctx context.Context) []HostSiteAccess {
	var out []HostSiteAccess
	for _, c := range s.pool.Conns() {
		h := HostSiteAccess{PID: c.Host().PID, Browser: c.Browser()}
		raw, err := c.Request(ctx, protocol.MethodSiteAccess, nil)
		if err == nil {
			if err = json.Unmarshal(raw, &h.Access); err != nil {
				err = fmt.Errorf("the browser answered the siteAccess request with %.200s (%v)", raw, err)
			}
		}
		h.Err = err
		out = append(out, h)
	}
	return out
}
