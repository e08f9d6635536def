package bridgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// PinStore plays the extension's pins: a pin request freezes the
// provider's snapshot in the context it holds, an unpin request drops pins,
// and both send the new list through the extension given to Attach.
type PinStore struct {
	mu   sync.Mutex
	ext  *fakeext.Ext
	ctx  protocol.Context
	pins []protocol.Pin
}

// Pin answers a pin request: the new pin, or not_found naming the
// providers there are.
func (s *PinStore) Pin(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
	var params struct {
		ProviderID string `json:"providerId"`
		TabID      int    `json:"tabId"`
	}
	if err := json.Unmarshal(req.Params, &params); err != nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, "bad params: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, p := range s.ctx.Providers {
		ids = append(ids, p.ID)
		if p.ID == params.ProviderID && params.TabID == s.ctx.TabID {
			pin := protocol.Pin{ProviderID: p.ID, Description: p.Description, Summary: p.Summary, Data: p.Data,
				TabID: s.ctx.TabID, URL: s.ctx.URL, Title: s.ctx.Title, PinnedAt: time.Now().UnixMilli()}
			s.pins = append(s.pins, pin)
			s.ext.SetPins(s.pins...)
			b, _ := json.Marshal(pin)
			return b, nil
		}
	}
	return nil, protocol.Errorf(protocol.CodeNotFound, "no context provider %q in tab %d; its providers: %s", params.ProviderID, params.TabID, strings.Join(ids, ", "))
}

// Unpin answers an unpin request with {"removed":n}.
func (s *PinStore) Unpin(_ context.Context, req *protocol.Message) (json.RawMessage, *protocol.Error) {
	var params struct {
		ProviderID string `json:"providerId"`
	}
	json.Unmarshal(req.Params, &params)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.pins)
	s.pins = slices.DeleteFunc(s.pins, func(p protocol.Pin) bool { return params.ProviderID == "" || p.ProviderID == params.ProviderID })
	removed := n - len(s.pins)
	if removed > 0 {
		s.ext.SetPins(s.pins...)
	}
	return json.RawMessage(fmt.Sprintf(`{"removed":%d}`, removed)), nil
}

// NewPinStore returns a PinStore, without pins, for the context c.
func NewPinStore(c protocol.Context) *PinStore { return &PinStore{ctx: c} }

// Serve makes p answer pin and unpin requests with s.
func (s *PinStore) Serve(p *Page) {
	p.HandleRequest(protocol.MethodPin, s.Pin)
	p.HandleRequest(protocol.MethodUnpin, s.Unpin)
}

// Attach sets the extension through which s sends the pins.
func (s *PinStore) Attach(ext *fakeext.Ext) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ext = ext
}
