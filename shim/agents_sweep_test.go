package shim

import (
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/protocol"
)

// TestStatelessAgentsIdleOut: an agent of stateless requests is forgotten
// once it made none for StatelessAgentIdle; one with a request under way,
// and an agent of a session, are not.
func TestStatelessAgentsIdleOut(t *testing.T) {
	t0 := time.Now()
	a := &agents{list: []agent{
		{info: protocol.AgentInfo{ID: "a1"}, key: "old\x001", seen: t0},
		{info: protocol.AgentInfo{ID: "a2"}, key: "recent\x001", seen: t0.Add(StatelessAgentIdle)},
		{info: protocol.AgentInfo{ID: "a3"}, seen: t0}, // a session's: dropped when it ends, never by the sweep
	}}
	if a.sweep(t0.Add(StatelessAgentIdle)) {
		t.Fatal("the sweep forgot an agent that was not idle for StatelessAgentIdle yet")
	}
	if !a.sweep(t0.Add(StatelessAgentIdle + time.Second)) {
		t.Fatal("the sweep forgot nothing")
	}
	var ids []string
	for _, e := range a.list {
		ids = append(ids, e.info.ID)
	}
	if len(ids) != 2 || ids[0] != "a2" || ids[1] != "a3" {
		t.Errorf("after the sweep the agents are %v, want [a2 a3]", ids)
	}
}
