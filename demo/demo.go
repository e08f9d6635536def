// Package demo serves the demo app: a small trace viewer that registers
// WebMCP tools and context providers, used by `webmcp-shim demo` and by the
// end-to-end tests.
package demo

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed site
var site embed.FS

// Files is the demo app's static files.
func Files() fs.FS {
	sub, err := fs.Sub(site, "site")
	if err != nil {
		panic(err) // the embedded tree always has "site"
	}
	return sub
}

// Handler serves the demo app. Responses are not cached, so that a reload
// shows the files as they are.
func Handler() http.Handler {
	files := http.FileServerFS(Files())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})
}
