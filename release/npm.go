package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// launcher is the npm package's command, webmcp-bridge.
//
//go:embed npm/webmcp-bridge.js
var launcher []byte

// npmPlatform is the npm name of a Go OS/ARCH ("linux-x64").
func npmPlatform(goos, goarch string) (os, cpu string) {
	os = map[string]string{"windows": "win32"}[goos]
	if os == "" {
		os = goos
	}
	cpu = map[string]string{"amd64": "x64"}[goarch]
	if cpu == "" {
		cpu = goarch
	}
	return os, cpu
}

// writeNPM writes the npm packages into dir, as esbuild lays them out: one
// package per system with its binaries (@webmcp-bridge/OS-CPU, limited to
// that os and cpu), and webmcp-bridge, which holds the installer and the
// extension (common: the install scripts, README, LICENSE and the
// extension's folder), names every system's package as an optional
// dependency (npm installs the one that fits) and runs the binaries of
// that one.
// npm pack in each folder makes the tarballs; publish the systems' first.
func writeNPM(dir, v string, common []entry, bins map[string][]entry) error {
	optional := map[string]string{}
	for _, t := range Targets {
		b, ok := bins[t]
		if !ok {
			continue
		}
		goos, goarch, _ := strings.Cut(t, "/")
		nos, cpu := npmPlatform(goos, goarch)
		name := "@webmcp-bridge/" + nos + "-" + cpu
		optional[name] = v
		var files []entry
		for _, e := range b {
			files = append(files, entry{"bin/" + e.name, e.mode, e.data})
		}
		files = append(files, entry{"README.md", 0o644, fmt.Appendf(nil,
			"# %s\n\nThe WebMCP bridge's webmcp-host and webmcp-shim for %s (%s). Install the package webmcp-bridge, which uses this one.\n", name, nos, cpu)})
		for _, e := range common {
			if e.name == "LICENSE" {
				files = append(files, e)
			}
		}
		pkg := map[string]any{
			"name":            name,
			"version":         v,
			"description":     "The WebMCP bridge's binaries for " + nos + " " + cpu + " (used by the package webmcp-bridge).",
			"license":         "SEE LICENSE IN LICENSE",
			"os":              []string{nos},
			"cpu":             []string{cpu},
			"files":           []string{"bin", "README.md", "LICENSE"},
			"preferUnplugged": true,
		}
		if err := writePackage(filepath.Join(dir, "webmcp-bridge-"+nos+"-"+cpu), pkg, files); err != nil {
			return err
		}
	}
	files := []entry{{"bin/webmcp-bridge.js", 0o755, launcher}}
	tops := []string{"bin"}
	for _, e := range common {
		files = append(files, e)
		top, _, _ := strings.Cut(e.name, "/")
		if !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	pkg := map[string]any{
		"name":                 "webmcp-bridge",
		"version":              v,
		"description":          "Gives local AI agents the WebMCP tools of the web pages open in your browser: an MCP server, its browser extension and native host.",
		"license":              "SEE LICENSE IN LICENSE",
		"bin":                  map[string]string{"webmcp-bridge": "bin/webmcp-bridge.js"},
		"files":                tops,
		"engines":              map[string]string{"node": ">=18"},
		"optionalDependencies": optional,
	}
	return writePackage(filepath.Join(dir, "webmcp-bridge"), pkg, files)
}

// writePackage writes package.json and files into dir.
func writePackage(dir string, pkg map[string]any, files []entry) error {
	b, err := marshalJSON(pkg)
	if err != nil {
		return err
	}
	files = append(files, entry{"package.json", 0o644, b})
	for _, e := range files {
		p := filepath.Join(dir, filepath.FromSlash(e.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, e.data, os.FileMode(e.mode)); err != nil {
			return err
		}
	}
	return nil
}

// marshalJSON is v as indented JSON and a newline, with <, > and & as
// they are (">=18", not "\u003e=18").
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
