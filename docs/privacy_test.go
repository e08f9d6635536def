package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPrivacyPermissions: privacy.md justifies every permission, host
// permission and optional host permission of extension/manifest.json,
// each permission on a line of its own, and none the manifest lacks.
func TestPrivacyPermissions(t *testing.T) {
	var m struct {
		Permissions             []string `json:"permissions"`
		HostPermissions         []string `json:"host_permissions"`
		OptionalHostPermissions []string `json:"optional_host_permissions"`
	}
	b, err := os.ReadFile(filepath.Join("..", "extension", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("privacy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(doc), "**Permissions**")
	if !ok {
		t.Fatal("privacy.md has no **Permissions** list")
	}
	item := regexp.MustCompile("(?m)^- `([a-zA-Z]+)`:")
	var justified []string
	for _, s := range item.FindAllStringSubmatch(list, -1) {
		justified = append(justified, s[1])
	}
	for _, p := range m.Permissions {
		if !slices.Contains(justified, p) {
			t.Errorf("privacy.md does not justify the permission %s (a line \"- `%s`: why\")", p, p)
		}
	}
	for _, p := range justified {
		if !slices.Contains(m.Permissions, p) {
			t.Errorf("privacy.md justifies %s, which extension/manifest.json does not ask for", p)
		}
	}
	flat := strings.Join(strings.Fields(list), " ")
	for _, p := range slices.Concat(m.HostPermissions, m.OptionalHostPermissions) {
		if !strings.Contains(flat, "`"+p+"`") {
			t.Errorf("privacy.md does not name the host permission %s", p)
		}
	}
	if !strings.Contains(flat, "- host permissions (") || !strings.Contains(flat, "- optional host permissions (") {
		t.Errorf("privacy.md lacks the host permissions' or the optional ones' line")
	}
}
