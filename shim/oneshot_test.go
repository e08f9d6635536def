package shim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// connectOnce makes a Server for the runtime directory dir and connects it
// once, as the CLI's one-shot commands do.
func connectOnce(t *testing.T, dir string) *shim.Server {
	t.Helper()
	srv := shim.New(shim.Options{Dir: dir, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	t.Cleanup(srv.Close)
	warnings, errs := srv.Connect(bridgetest.Context(t), 10*time.Second)
	if len(warnings)+len(errs) != 0 {
		t.Fatalf("Connect: warnings %v, errors %v", warnings, errs)
	}
	return srv
}

// The one-shot API that the CLI uses: the tools, hosts, calls and pins as
// an agent would see them.
func TestOneShotServer(t *testing.T) {
	ctx := bridgetest.Context(t)
	dir := bridgetest.RuntimeDir(t)

	// Without a browser.
	srv := connectOnce(t, dir)
	if _, err := srv.Pin(ctx, bridgetest.SelectionID); !errors.Is(err, shim.ErrNoBrowser) {
		t.Errorf("Pin without a browser = %v, want ErrNoBrowser", err)
	}
	if _, err := srv.Unpin(ctx, ""); !errors.Is(err, shim.ErrNoBrowser) {
		t.Errorf("Unpin without a browser = %v, want ErrNoBrowser", err)
	}
	if srv.Dir() != dir || len(srv.Hosts()) != 0 || len(srv.Pins()) != 0 || srv.MCP() == nil {
		t.Errorf("without a browser: dir %q, hosts %v, pins %v", srv.Dir(), srv.Hosts(), srv.Pins())
	}

	c := bridgetest.TraceContext("Selected slice CommitNavigation", time.Now())
	store := bridgetest.NewPinStore(c)
	p := bridgetest.NewPage()
	store.Serve(p)
	ext := bridgetest.StartHost(t, dir, p)
	store.Attach(ext)
	yes := true
	marked := bridgetest.Tool(12, "comments")
	marked.Title = "Comments"
	marked.Annotations = &protocol.Annotations{UntrustedContentHint: &yes}
	if err := ext.SendState(&protocol.Snapshot{Tabs: []protocol.Tab{bridgetest.FocusedTab(), bridgetest.BankTab()},
		Tools: []protocol.Tool{bridgetest.Tool(12, "echo"), marked, bridgetest.Tool(13, "transfer")}, Contexts: []protocol.Context{c}}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 3 })
	srv = connectOnce(t, dir)

	var names []string
	for _, ti := range srv.Tools() {
		names = append(names, ti.Name)
	}
	if strings.Join(names, " ") != "list_tabs get_ui_context open_page focus_tab close_tab comments echo" {
		t.Errorf("Tools = %v, want the bridge's first, then the allowed tab's by name", names)
	}
	tools := srv.Tools()
	if b := tools[0]; !b.Bridge || b.Provenance != "[WebMCP bridge]" || b.PageDescription != "" {
		t.Errorf("bridge tool info = %+v", b)
	}
	// The agent's description has the provenance and the note; the page's
	// own description is kept apart, as the page gave it.
	if cm := tools[5]; cm.PageName != "comments" || cm.PageDescription != "Does comments." || cm.Title != "Comments" ||
		cm.Description != cm.Provenance+" "+shim.LabelUntrusted+" "+shim.PageSays+"Does comments." {
		t.Errorf("page tool info = %+v", cm)
	}
	hosts := srv.Hosts()
	if len(hosts) != 1 || hosts[0].Tools != 2 || len(hosts[0].Tabs) != 2 || hosts[0].Tabs[0].Browser != "Chromium 156.0.0.0" || hosts[0].Tabs[1].Tools != 0 {
		t.Errorf("Hosts = %+v", hosts)
	}
	res, err := srv.CallTool(ctx, "echo", json.RawMessage(`{"x":1}`))
	if err != nil || res.IsError || !strings.Contains(bridgetest.Text(res), `"args":{"x":1}`) {
		t.Errorf("CallTool(echo) = %+v, %v", res, err)
	}
	if _, err := srv.CallTool(ctx, "transfer", nil); !errors.Is(err, shim.ErrNoTool) {
		t.Errorf("CallTool of a tool of a tab not allowed = %v, want ErrNoTool", err)
	}

	pin, err := srv.Pin(ctx, bridgetest.SelectionID)
	if err != nil || pin.ProviderID != bridgetest.SelectionID || pin.TabID != 12 || pin.Summary != "Selected slice CommitNavigation" {
		t.Fatalf("Pin = %+v, %v", pin, err)
	}
	var werr *protocol.Error
	if _, err := srv.Pin(ctx, "trace.Nope"); !errors.As(err, &werr) || werr.Code != protocol.CodeNotFound {
		t.Errorf("Pin of an unknown provider = %v, want the extension's not_found", err)
	}
	// The extension sends the new pins before it answers, and the host
	// keeps the order: the answer finds them in place.
	if got := srv.Pins()[0]; got.ProviderID != bridgetest.SelectionID || got.TabID != 12 {
		t.Errorf("Pins = %+v", srv.Pins())
	}
	if n, err := srv.Unpin(ctx, "trace.Nope"); n != 0 || err != nil {
		t.Errorf("Unpin of a provider not pinned = %d, %v", n, err)
	}
	if n, err := srv.Unpin(ctx, ""); n != 1 || err != nil {
		t.Errorf("Unpin all = %d, %v", n, err)
	}
	if len(srv.Pins()) != 0 {
		t.Errorf("Pins after Unpin = %+v", srv.Pins())
	}

	// The focused tab's site is not allowed: nothing is pinned from it.
	bank := bridgetest.BankTab()
	bank.Focused = true
	ext.UpdateTab(bank)
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool {
		for _, tab := range s.Tabs {
			if tab.ID == 13 && tab.Focused {
				return true
			}
		}
		return false
	})
	srv = connectOnce(t, dir)
	if _, err := srv.Pin(context.Background(), bridgetest.SelectionID); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("Pin with a focused tab not allowed = %v", err)
	}
}
