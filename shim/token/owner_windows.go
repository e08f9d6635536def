package token

import (
	"errors"
	"io/fs"
)

// errWindows is what every use of the token says on Windows: file modes do
// not make a file private there, and checking its ACL is not written yet.
var errWindows = errors.New("not supported on Windows yet: the HTTP token (webmcp-shim --http and webmcp-shim token); use the stdio MCP server")

// ownedByUser refuses every file on Windows (see errWindows).
func ownedByUser(fs.FileInfo) error { return errWindows }

// supported refuses on Windows (see errWindows).
func supported() error { return errWindows }
