package webmcp_test

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/webmcp"
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
	if shared.HostName != webmcp.HostName {
		t.Errorf("hostName %q, webmcp.HostName %q", shared.HostName, webmcp.HostName)
	}
	if shared.MaxResult != webmcp.MaxResult {
		t.Errorf("maxResult %d, webmcp.MaxResult %d", shared.MaxResult, webmcp.MaxResult)
	}
	if shared.MaxBrowserChunk != webmcp.MaxBrowserChunk {
		t.Errorf("maxBrowserChunk %d, webmcp.MaxBrowserChunk %d", shared.MaxBrowserChunk, webmcp.MaxBrowserChunk)
	}
	var hints []string
	at := reflect.TypeFor[webmcp.Annotations]()
	for i := range at.NumField() {
		name, _, _ := strings.Cut(at.Field(i).Tag.Get("json"), ",")
		hints = append(hints, name)
	}
	if !slices.Equal(shared.Hints, hints) {
		t.Errorf("hints %v, the fields of webmcp.Annotations %v", shared.Hints, hints)
	}
}
