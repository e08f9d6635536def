// Package token keeps the bearer token that MCP clients send to
// `webmcp-shim --http`: a random secret made on first use and stored,
// readable by the user alone, in the user's config directory.
package token

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/userfiles"
)

// Dir is the folder under the user's config directory (os.UserConfigDir:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
// macOS, %AppData% on Windows) that holds the token file.
const Dir = userfiles.Dir

// FileName is the token file's name in Dir.
const FileName = userfiles.TokenFile

// Path is where the token is stored (userfiles.TokenPath: the uninstall
// finds it there too).
func Path() (string, error) { return userfiles.TokenPath() }

// Load returns the token stored at path, creating one first if there is
// none. It refuses a token file that others may read or that is not the
// user's, since anyone who reads it can use the browser's tools.
func Load(path string) (string, error) {
	tok, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(path)
	}
	return tok, err
}

// New writes a fresh token to path (mode 0600, its folder 0700; on Windows
// owned by the user with an access list that lets in the user alone),
// replacing any old one, and returns it. Clients that used the old token
// are refused from then on.
func New(path string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	tok := hex.EncodeToString(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create the folder of the HTTP token: %w", err)
	}
	tmp, err := createPrivate(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("write the HTTP token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write the HTTP token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write the HTTP token: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write the HTTP token: %w", err)
	}
	return tok, nil
}

func read(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("the HTTP token %s is not a regular file (a symlink?): remove it and run webmcp-shim token --new", path)
	}
	if err := checkPrivate(path, fi); err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("the HTTP token %s is too short to be safe: run webmcp-shim token --new", path)
	}
	return tok, nil
}
