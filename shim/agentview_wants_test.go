package shim_test

import (
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
	"github.com/webmcp-bridge/bridge/shim"
)

// TestDescriptionHandWritten: the description agents get, written out by
// hand for a few cases (the golden file's wants are written by the shim
// itself with -update, so they cannot catch a wrong label text).
func TestDescriptionHandWritten(t *testing.T) {
	yes := true
	tab := protocol.Tab{ID: 7, URL: "http://localhost:8080/", Title: "Shop", Origin: "http://localhost:8080", Allowed: true}
	for _, tc := range []struct {
		name string
		tool protocol.Tool
		want string
	}{
		{"no hint at all", protocol.Tool{TabID: 7, Origin: tab.Origin, Name: "pay", Description: "Pays the order."},
			`[localhost:8080 · tab 7 "Shop"] The page says: Pays the order.`},
		{"read-only", protocol.Tool{TabID: 7, Origin: tab.Origin, Name: "look", Description: "Shows the order.", Annotations: &protocol.Annotations{ReadOnlyHint: &yes}},
			`[localhost:8080 · tab 7 "Shop"] [READ-ONLY] The page says: Shows the order.`},
		{"changed", protocol.Tool{TabID: 7, Origin: tab.Origin, Name: "pay", Description: "Pays the order.", Changed: true},
			`[localhost:8080 · tab 7 "Shop"] [CHANGED] The page says: Pays the order.`},
	} {
		if got := shim.Description(tc.tool, tab); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
