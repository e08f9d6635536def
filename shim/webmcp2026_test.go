package shim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
	"github.com/webmcp-bridge/bridge/shim/results"
)

func bp(b bool) *bool { return &b }

// A tool whose page set consequentialHint is destructiveHint at the client
// (unless the page said destructiveHint itself), says "consequential" in its
// provenance and carries the page's word in _meta.
func TestConsequentialHint(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	pay := bridgetest.Tool(12, "pay")
	pay.Annotations = &protocol.Annotations{ReadOnlyHint: bp(false), ConsequentialHint: bp(true)}
	undo := bridgetest.Tool(12, "undoable")
	undo.Annotations = &protocol.Annotations{ConsequentialHint: bp(true), DestructiveHint: bp(false)}
	plain := bridgetest.Tool(12, "echo")
	plain.Annotations = &protocol.Annotations{ReadOnlyHint: bp(true)}
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Shop")}, []protocol.Tool{pay, undo, plain}, []string{"pay", "undoable", "echo"}, 0)
	tools := sc.Tools(ctx)

	got := tools["pay"]
	if a := got.Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("pay annotations = %+v, want destructiveHint true", a)
	}
	if !strings.HasPrefix(got.Description, `[`) || !strings.Contains(got.Description, `"Shop"] `+shim.LabelConsequential+` `+shim.PageSays) {
		t.Errorf("pay description = %q, want the provenance, then %s, then the page's words", got.Description, shim.LabelConsequential)
	}
	if got.Meta[shim.ConsequentialMeta] != true {
		t.Errorf("pay _meta = %v, want %s: true", got.Meta, shim.ConsequentialMeta)
	}
	if a := tools["undoable"].Annotations; a == nil || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("undoable annotations = %+v, want the page's destructiveHint false", a)
	}
	if d := tools["echo"].Description; strings.Contains(d, shim.LabelConsequential) || tools["echo"].Meta[shim.ConsequentialMeta] != nil {
		t.Errorf("a tool without the hint is marked consequential: %q %v", d, tools["echo"].Meta)
	}
}

// Debugging tools are left out unless the shim is told to list them.
func TestDebuggingToolsHidden(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	dbg := bridgetest.Tool(12, "dump_state")
	dbg.Annotations = &protocol.Annotations{Debugging: bp(true)}
	sc, _, dir := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "App")}, []protocol.Tool{bridgetest.Tool(12, "echo"), dbg}, []string{"echo"}, 0)
	if tools := sc.Tools(ctx); tools["dump_state"] != nil {
		t.Errorf("a debugging tool is listed without the setting: %v", bridgetest.Names(tools))
	}

	srv := shim.New(shim.Options{Dir: dir, DebuggingTools: true, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()})
	on := bridgetest.ServeMCP(t, srv.Serve)
	on.AwaitTools(ctx, "the debugging tool, with the setting on", bridgetest.Has("echo", "dump_state"))

	t.Setenv(shim.DebuggingToolsEnv, "1")
	env := bridgetest.ServeMCP(t, shim.New(shim.Options{Dir: dir, Logger: bridgetest.NewLog(t, "webmcp-shim").Slog()}).Serve)
	env.AwaitTools(ctx, "the debugging tool, with "+shim.DebuggingToolsEnv+"=1", bridgetest.Has("echo", "dump_state"))
}

// A page tool's outputSchema is the MCP tool's; a result that matches it
// arrives as structuredContent with its text, one that does not is an error
// result naming the field.
func TestOutputSchema(t *testing.T) {
	ctx := bridgetest.Context(t)
	p := bridgetest.NewPage()
	var answer string
	p.Handle("stats", func(context.Context, *protocol.Message) (json.RawMessage, *protocol.Error) {
		return json.RawMessage(answer), nil
	})
	stats := bridgetest.Tool(12, "stats")
	stats.OutputSchema = json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"},"name":{"type":"string"}},"required":["count"]}`)
	odd := bridgetest.Tool(12, "echo")
	odd.OutputSchema = json.RawMessage(`{"type":"array"}`) // not an object: left out
	sc, _, _ := setup(t, p, []protocol.Tab{bridgetest.Tab(12, "Stats")}, []protocol.Tool{stats, odd}, []string{"stats", "echo"}, 0)
	tools := sc.Tools(ctx)
	out, _ := json.Marshal(tools["stats"].OutputSchema)
	if !strings.Contains(string(out), `"required":["count"]`) {
		t.Errorf("stats outputSchema = %s, want the page's", out)
	}
	if tools["echo"].OutputSchema != nil {
		t.Errorf("echo has outputSchema %v; a schema that is not of an object must be left out", tools["echo"].OutputSchema)
	}

	answer = `{"count":3,"name":"slices"}`
	res := sc.Call(ctx, "stats", nil)
	var got struct {
		Count int    `json:"count"`
		Name  string `json:"name"`
	}
	bridgetest.Structured(t, res, &got)
	if res.IsError || got.Count != 3 || got.Name != "slices" || bridgetest.Text(res) != answer {
		t.Errorf("stats = %q (isError %v, structured %+v)", bridgetest.Text(res), res.IsError, got)
	}

	answer = `{"count":"three"}`
	res = sc.Call(ctx, "stats", nil)
	if !res.IsError || !strings.Contains(bridgetest.Text(res), `field "count"`) || res.Meta[results.MetaCode] != results.CodeInvalidOutput {
		t.Errorf("a result that does not match: %q (isError %v, _meta %v), want an error naming field count", bridgetest.Text(res), res.IsError, res.Meta)
	}
	answer = `"just text"`
	res = sc.Call(ctx, "stats", nil)
	if !res.IsError || !strings.Contains(bridgetest.Text(res), "no JSON object") {
		t.Errorf("a text result of a tool with an outputSchema: %q (isError %v)", bridgetest.Text(res), res.IsError)
	}
	answer = `{"content":[{"type":"text","text":"3 slices"}],"structuredContent":{"count":3}}`
	res = sc.Call(ctx, "stats", nil)
	if res.IsError || bridgetest.Text(res) != "3 slices" {
		t.Errorf("an MCP-style result that matches: %q (isError %v)", bridgetest.Text(res), res.IsError)
	}
}
