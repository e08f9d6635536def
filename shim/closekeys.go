package shim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/webmcp-bridge/bridge/shim/httpserve"
)

// A client of MCP 2026-07-28 over HTTP makes each request without a
// session, and names itself in each: two such clients of the same name and
// version are one agent to the browser, which lets an agent close only the
// tabs it opened. So that one of them cannot close a tab the other opened,
// open_page answers such a client a closeKey of the tab, a secret the shim
// hands out, and close_tab closes a tab for such a client only with it.

// isStateless reports whether ctx is a request of a client without a
// session (MCP 2026-07-28 over HTTP), whose agent is its name and version
// alone.
func isStateless(ctx context.Context) bool {
	return httpserve.Stateless(ctx)
}

// MaxCloseKeys bounds the closeKeys a shim keeps; past it, the oldest is
// forgotten (its tab can then be closed only by the user).
const MaxCloseKeys = 1024

// closeKeys are the closeKeys open_page handed out, each for one tab.
type closeKeys struct {
	mu    sync.Mutex
	tabs  map[string]int // key -> tab id
	order []string       // oldest first
}

// issue returns a new key for tab.
func (k *closeKeys) issue(tab int) string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	key := hex.EncodeToString(b)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.tabs == nil {
		k.tabs = map[string]int{}
	}
	k.tabs[key] = tab
	k.order = append(k.order, key)
	for len(k.order) > MaxCloseKeys {
		delete(k.tabs, k.order[0])
		k.order = k.order[1:]
	}
	return key
}

// valid reports whether key was handed out for tab.
func (k *closeKeys) valid(key string, tab int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.tabs[key]
	return ok && t == tab
}

// forget forgets key (its tab closed).
func (k *closeKeys) forget(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.tabs[key]; !ok {
		return
	}
	delete(k.tabs, key)
	k.order = slices.DeleteFunc(k.order, func(o string) bool { return o == key })
}
