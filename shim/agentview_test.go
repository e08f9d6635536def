package shim

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim/schemas"
	"github.com/webmcp-bridge/bridge/shim/toolnames"
)

var updateGolden = flag.Bool("update", false, "write the want fields of testdata/agentview/cases.json from the shim")

// agentViewCases is testdata/agentview/cases.json: what an agent gets of
// page tools, which the extension's inspector mirrors (lib/agentview.js,
// checked against the same file by extension/test/agentview.test.js).
type agentViewCases struct {
	Comment     string   `json:"comment"`
	BridgeTools []string `json:"bridgeTools"`
	Tools       []struct {
		Case string          `json:"case"`
		Tool json.RawMessage `json:"tool"`
		Tab  json.RawMessage `json:"tab"`
		Want *agentViewWant  `json:"want,omitempty"`
	} `json:"tools"`
	Names []struct {
		Case  string          `json:"case"`
		Tools []protocol.Tool `json:"tools"`
		Want  []string        `json:"want,omitempty"`
	} `json:"names"`
}

type agentViewWant struct {
	Tool          json.RawMessage `json:"tool"` // the MCP tool without its name
	Problem       string          `json:"problem"`
	Refused       string          `json:"refused"`
	OutputProblem string          `json:"outputProblem"`
}

// agentView is what syncHost makes of t in tab, as one shim alone would.
func agentView(t protocol.Tool, tab protocol.Tab) (agentViewWant, error) {
	mt, _, problem := describeTool(t, tab)
	var w agentViewWant
	w.Problem = problem
	var rej *schemas.RejectedError
	if _, err := schemas.Resolve(t.InputSchema); errors.As(err, &rej) {
		refuse(mt, rej.Reason)
		w.Refused = rej.Reason
	}
	out, why := schemas.ForOutput(t.OutputSchema)
	if out != nil {
		if _, err := schemas.Resolve(out); err != nil {
			why = err.Error()
		} else {
			mt.OutputSchema = out
		}
	}
	w.OutputProblem = why
	b, err := json.Marshal(mt)
	w.Tool = b
	return w, err
}

func TestAgentViewGolden(t *testing.T) {
	path := filepath.Join("..", "testdata", "agentview", "cases.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases agentViewCases
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	var reserved []string
	for _, bt := range bridgeTools() {
		reserved = append(reserved, bt.Tool.Name)
	}
	if *updateGolden {
		cases.BridgeTools = reserved
	} else if !slices.Equal(cases.BridgeTools, reserved) {
		t.Errorf("bridgeTools are %q in the golden file, %q in the shim", cases.BridgeTools, reserved)
	}
	for i, c := range cases.Tools {
		var tool protocol.Tool
		var tab protocol.Tab
		if err := json.Unmarshal(c.Tool, &tool); err != nil {
			t.Fatalf("%s: tool: %v", c.Case, err)
		}
		if err := json.Unmarshal(c.Tab, &tab); err != nil {
			t.Fatalf("%s: tab: %v", c.Case, err)
		}
		got, err := agentView(tool, tab)
		if err != nil {
			t.Fatalf("%s: %v", c.Case, err)
		}
		if *updateGolden {
			cases.Tools[i].Want = &got
			continue
		}
		if c.Want == nil {
			t.Errorf("%s: no want (run with -update)", c.Case)
			continue
		}
		if !sameJSON(t, got.Tool, c.Want.Tool) || got.Problem != c.Want.Problem || got.Refused != c.Want.Refused || got.OutputProblem != c.Want.OutputProblem {
			t.Errorf("%s:\n got %s %q %q %q\nwant %s %q %q %q", c.Case, got.Tool, got.Problem, got.Refused, got.OutputProblem,
				c.Want.Tool, c.Want.Problem, c.Want.Refused, c.Want.OutputProblem)
		}
	}
	for i, c := range cases.Names {
		r := toolnames.NewRegistry[protocol.ToolRef](reserved...)
		var got []string
		for j, tool := range c.Tools {
			tool.FrameID = j // one key per tool
			got = append(got, r.Assign(tool.Ref(), tool.Name, nameClass(tool)))
		}
		if *updateGolden {
			cases.Names[i].Want = got
			continue
		}
		if !slices.Equal(got, c.Want) {
			t.Errorf("%s: names %q, want %q", c.Case, got, c.Want)
		}
	}
	if *updateGolden {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", " ")
		if err := enc.Encode(cases); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameJSON reports whether a and b are the same JSON value (key order aside).
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
