package bridgetest

import (
	"context"
	"encoding/json"
	"time"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// The context provider of the UI context fixtures: a trace viewer's
// timeline selection.
const (
	SelectionID   = "trace.Timeline#selection"
	SelectionDesc = `Timeline selection: "ts" and "dur" are in nanoseconds; "id" joins the slice table.`
	SelectionData = `{"type":"slice","id":3,"ts":1200,"dur":12300000}`
)

// FocusedTab is tab 12, "Trace viewer", allowed: the one the user looks at.
func FocusedTab() protocol.Tab {
	t := Tab(12, "Trace viewer")
	t.URL = "http://localhost:8080/"
	t.Focused = true
	return t
}

// BankTab is tab 13, active in another window, whose site is not allowed.
func BankTab() protocol.Tab {
	return protocol.Tab{ID: 13, WindowID: 2, Active: true, Title: "My bank account", URL: "https://bank.example/accounts/123", Origin: "https://bank.example"}
}

// TraceContext is a typical UI context of [FocusedTab], sampled at time at:
// the selection provider with summary and [SelectionData], a provider that
// failed ("trace.Flaky"), a text selection and a focused button.
func TraceContext(summary string, at time.Time) protocol.Context {
	return protocol.Context{
		TabID: 12, URL: "http://localhost:8080/", Title: "Trace viewer", Time: at.UnixMilli(),
		Providers: []protocol.ProviderSnapshot{
			{ID: SelectionID, Description: SelectionDesc, Summary: summary, Data: json.RawMessage(SelectionData)},
			{ID: "trace.Flaky", Note: "getContext threw: not ready"},
		},
		Ambient: &protocol.Ambient{Selection: "CommitNavigation", Focused: &protocol.Element{Role: "button", Name: "Zoom in", Tag: "button"}},
	}
}

// SampleWith is a sampleContext handler that answers as the extension
// does: it sends the fresh context c() through the extension ext() (unless
// ext or what it returns is nil), then answers with it.
func SampleWith(ext func() *fakeext.Ext, c func() protocol.Context) fakeext.Handler {
	return func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		fresh := c()
		if ext != nil {
			if e := ext(); e != nil {
				e.SetContext(fresh)
			}
		}
		b, _ := json.Marshal(fresh)
		return b, nil
	}
}
