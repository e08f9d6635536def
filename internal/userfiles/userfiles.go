// Package userfiles names the places where the bridge keeps files in the
// user's own folders, outside any install: the HTTP token of
// `webmcp-shim --http` in the config directory, and the cache directory's
// folder of the bridge, which holds the tool results that shims saved for
// agents (and, by default, the runtime folder: endpoint.RuntimeDir). The
// shim makes and reads these files; the installer's uninstall removes
// them; both find them here, so that neither imports the other.
//
// Production code.
package userfiles

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the bridge's folder under the user's config directory
// (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows) and under
// the user's cache directory (os.UserCacheDir).
const Dir = "webmcp-bridge"

// TokenFile is the HTTP token's file name in the config directory's [Dir].
const TokenFile = "http-token"

// ResultsDir is the folder of the tool results that shims saved, in the
// cache directory's [Dir].
const ResultsDir = "results"

// TokenPath is where the HTTP token is stored.
func TokenPath() (string, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the HTTP token: %w (set HOME or XDG_CONFIG_HOME)", err)
	}
	return filepath.Join(cfg, Dir, TokenFile), nil
}

// CacheDir is the bridge's folder in the user's cache directory.
func CacheDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, Dir), nil
}

// Results is the folder of the tool results that shims saved: [ResultsDir]
// in [CacheDir], or in the temporary directory when there is no cache
// directory.
func Results() string {
	d, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(d) {
		d = os.TempDir()
	}
	return filepath.Join(d, Dir, ResultsDir)
}
