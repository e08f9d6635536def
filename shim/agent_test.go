package shim_test

import (
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// TestAgentReachesTheBrowser: the MCP client's name and version from
// initialize reach the extension in the host's sessions message.
func TestAgentReachesTheBrowser(t *testing.T) {
	ctx := bridgetest.Context(t)
	_, ext, _ := setup(t, bridgetest.NewPage(), []webmcp.Tab{bridgetest.Tab(12, "One")}, []webmcp.Tool{bridgetest.Tool(12, "echo")}, []string{"echo"}, 0)
	m, err := ext.Await(ctx, func(m *webmcp.Message) bool {
		for _, s := range m.Sessions {
			if s.Client.Agent != nil {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no sessions message named the agent: %v", err)
	}
	var names []string
	for _, s := range m.Sessions {
		if a := s.Client.Agent; a != nil {
			names = append(names, a.Name+" "+a.Version)
		}
	}
	if len(names) != 1 || names[0] != bridgetest.ClientName+" "+bridgetest.ClientVersion {
		t.Errorf("agents %v, want the MCP client's name and version", names)
	}
}
