package version

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// The extension is loaded unpacked from extension/ with no build step, so
// its committed manifest must carry the same version as the binaries.
func TestManifestVersionIsVersion(t *testing.T) {
	b, err := os.ReadFile("../../extension/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("extension/manifest.json: %v", err)
	}
	if m.Version != Version {
		t.Errorf("extension/manifest.json has version %q, internal/version.Version is %q: set both to the new version", m.Version, Version)
	}
}

// Chrome takes one to four dot-separated numbers as an extension's version.
func TestVersionIsChromeVersion(t *testing.T) {
	if !regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,3}$`).MatchString(Version) {
		t.Errorf("Version %q is not 1 to 4 dot-separated numbers, as Chrome wants for the extension", Version)
	}
}
