package protocol_test

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

// testdata/shared.json holds the values that the Go code and the extension
// both define; extension/test/constants.test.js checks the extension's
// against the same file.
func TestSharedValues(t *testing.T) {
	b, err := os.ReadFile("../testdata/shared.json")
	if err != nil {
		t.Fatal(err)
	}
	var shared struct {
		HostName        string   `json:"hostName"`
		Hints           []string `json:"hints"`
		MaxResult       int      `json:"maxResult"`
		MaxBrowserChunk int      `json:"maxBrowserChunk"`
	}
	if err := json.Unmarshal(b, &shared); err != nil {
		t.Fatal(err)
	}
	if shared.HostName != protocol.HostName {
		t.Errorf("hostName %q, protocol.HostName %q", shared.HostName, protocol.HostName)
	}
	if shared.MaxResult != protocol.MaxResult {
		t.Errorf("maxResult %d, protocol.MaxResult %d", shared.MaxResult, protocol.MaxResult)
	}
	if shared.MaxBrowserChunk != protocol.MaxBrowserChunk {
		t.Errorf("maxBrowserChunk %d, protocol.MaxBrowserChunk %d", shared.MaxBrowserChunk, protocol.MaxBrowserChunk)
	}
	var hints []string
	at := reflect.TypeFor[protocol.Annotations]()
	for i := range at.NumField() {
		name, _, _ := strings.Cut(at.Field(i).Tag.Get("json"), ",")
		hints = append(hints, name)
	}
	if !slices.Equal(shared.Hints, hints) {
		t.Errorf("hints %v, the fields of protocol.Annotations %v", shared.Hints, hints)
	}
}
