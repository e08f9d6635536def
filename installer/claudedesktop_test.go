package installer

import (
	"os"
	"path/filepath"
	"testing"
)

// The next steps name register claude-desktop where Claude Desktop has
// run: its folder is there (macOS, Windows; it has no Linux build).
func TestClaudeDesktopFound(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		goos, appData string
		want          bool
	}{
		{"darwin", "", false},
		{"windows", "", false},
	} {
		if got := claudeDesktopFound(tc.goos, home, tc.appData); got != tc.want {
			t.Errorf("%s before: %v", tc.goos, got)
		}
	}
	os.MkdirAll(filepath.Join(home, "Library", "Application Support", "Claude"), 0o700)
	appData := filepath.Join(home, "Roaming")
	os.MkdirAll(filepath.Join(appData, "Claude"), 0o700)
	os.MkdirAll(filepath.Join(home, ".config", "Claude"), 0o700)
	for _, tc := range []struct {
		goos, appData string
		want          bool
	}{
		{"darwin", "", true},
		{"windows", appData, true},
		{"windows", "", false}, // %APPDATA% is elsewhere
		{"linux", "", false},
	} {
		if got := claudeDesktopFound(tc.goos, home, tc.appData); got != tc.want {
			t.Errorf("claudeDesktopFound(%s, APPDATA %q) = %v, want %v", tc.goos, tc.appData, got, tc.want)
		}
	}
}
