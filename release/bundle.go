package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"slices"
)

// bundleTargets are the builds the Claude Desktop bundle takes its
// webmcp-shim from: Claude Desktop runs on macOS and Windows only.
var bundleTargets = []string{"darwin/amd64", "darwin/arm64", "windows/amd64"}

// bundleTargetsIn says whether targets hold every one of bundleTargets.
func bundleTargetsIn(targets []string) bool {
	for _, t := range bundleTargets {
		if !slices.Contains(targets, t) {
			return false
		}
	}
	return true
}

// mcpbVersion is the MCPB manifest version the bundle's manifest follows
// (github.com/modelcontextprotocol/mcpb, MANIFEST.md).
const mcpbVersion = "0.3"

// mcpbManifest is the bundle's manifest.json: the fields of MCPB's
// manifest that the bundle uses.
type mcpbManifest struct {
	ManifestVersion string           `json:"manifest_version"`
	Name            string           `json:"name"`
	DisplayName     string           `json:"display_name,omitempty"`
	Version         string           `json:"version"`
	Description     string           `json:"description"`
	LongDescription string           `json:"long_description,omitempty"`
	Author          mcpbAuthor       `json:"author"`
	Repository      *mcpbRepository  `json:"repository,omitempty"`
	Homepage        string           `json:"homepage,omitempty"`
	Icon            string           `json:"icon,omitempty"`
	Server          mcpbServer       `json:"server"`
	ToolsGenerated  bool             `json:"tools_generated,omitempty"`
	Keywords        []string         `json:"keywords,omitempty"`
	License         string           `json:"license,omitempty"`
	Compatibility   *mcpbCompatility `json:"compatibility,omitempty"`
}

type mcpbAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type mcpbRepository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type mcpbServer struct {
	Type       string        `json:"type"`
	EntryPoint string        `json:"entry_point"`
	MCPConfig  mcpbMCPConfig `json:"mcp_config"`
}

type mcpbMCPConfig struct {
	Command           string                  `json:"command"`
	Args              []string                `json:"args"`
	PlatformOverrides map[string]mcpbOverride `json:"platform_overrides,omitempty"`
}

type mcpbOverride struct {
	Command string `json:"command,omitempty"`
}

type mcpbCompatility struct {
	Platforms []string `json:"platforms"`
}

// bundle is the content of the Claude Desktop bundle (an MCPB file, a zip
// that Claude Desktop installs with a click): its manifest, the icon, the
// license and webmcp-shim for macOS and Windows, from the builds of
// bundleTargets in bins.
//
// One bundle holds both systems, since a user downloads one file and MCPB
// picks a command per system (platform_overrides) but not per CPU: macOS
// gets one universal binary (amd64 and arm64, as lipo makes it), Windows
// the amd64 one, which Windows on Arm runs emulated.
func bundle(v string, bins map[string][]entry, icon []byte, common []entry) ([]entry, error) {
	shim := func(target string) []byte {
		for _, e := range bins[target] {
			if e.name == "webmcp-shim" || e.name == "webmcp-shim.exe" {
				return e.data
			}
		}
		return nil
	}
	mac, err := fatMachO(shim("darwin/amd64"), shim("darwin/arm64"))
	if err != nil {
		return nil, err
	}
	win := shim("windows/amd64")
	if win == nil {
		return nil, fmt.Errorf("no webmcp-shim.exe for windows/amd64")
	}
	m := mcpbManifest{
		ManifestVersion: mcpbVersion,
		Name:            "webmcp-bridge",
		DisplayName:     "WebMCP bridge",
		Version:         v,
		Description:     "The WebMCP tools of the web pages open in your browser, as MCP tools, and what you selected in the page.",
		LongDescription: "This is the bridge's MCP server (webmcp-shim). It reaches your browser through the bridge's native host and browser extension, " +
			"which the bridge's installer sets up: install the WebMCP bridge from a release archive or with npx webmcp-bridge install first, " +
			"and load its extension. The tools change with the pages you have open.",
		Author:         mcpbAuthor{Name: "The WebMCP bridge authors", URL: "https://github.com/webmcp-bridge/bridge"},
		Repository:     &mcpbRepository{Type: "git", URL: "https://github.com/webmcp-bridge/bridge"},
		Homepage:       "https://github.com/webmcp-bridge/bridge",
		Icon:           "icon.png",
		ToolsGenerated: true,
		Keywords:       []string{"webmcp", "browser", "chrome", "extension"},
		License:        "Apache-2.0",
		Server: mcpbServer{
			Type:       "binary",
			EntryPoint: "server/webmcp-shim",
			MCPConfig: mcpbMCPConfig{
				Command: "${__dirname}/server/webmcp-shim",
				Args:    []string{},
				PlatformOverrides: map[string]mcpbOverride{
					"win32": {Command: "${__dirname}/server/webmcp-shim.exe"},
				},
			},
		},
		Compatibility: &mcpbCompatility{Platforms: []string{"darwin", "win32"}},
	}
	b, err := marshalJSON(m)
	if err != nil {
		return nil, err
	}
	out := []entry{
		{"manifest.json", 0o644, b},
		{"icon.png", 0o644, icon},
		{"server/webmcp-shim", 0o755, mac},
		{"server/webmcp-shim.exe", 0o755, win},
	}
	for _, e := range common {
		if e.name == "LICENSE" {
			out = append(out, e)
		}
	}
	return out, nil
}

// fatAlign is the alignment (a power of two) of each file in a universal
// binary: 16 KiB, the page size of arm64 macOS, as lipo uses.
const fatAlign = 14

// fatMachO joins Mach-O executables for different CPUs into one universal
// ("fat") binary, as lipo -create does: a big-endian header, then each
// file, unchanged (a code signature included), at an aligned offset.
func fatMachO(files ...[]byte) ([]byte, error) {
	type arch struct {
		cpu, sub uint32
		data     []byte
	}
	var archs []arch
	for _, b := range files {
		f, err := macho.NewFile(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("not a Mach-O file: %w", err)
		}
		archs = append(archs, arch{uint32(f.Cpu), f.SubCpu, b})
		f.Close()
	}
	const headerSize, archSize = 8, 20
	var out bytes.Buffer
	be := binary.BigEndian
	out.Write(be.AppendUint32(nil, macho.MagicFat))
	out.Write(be.AppendUint32(nil, uint32(len(archs))))
	offset := uint32(headerSize + archSize*len(archs))
	var offsets []uint32
	for _, a := range archs {
		offset = (offset + 1<<fatAlign - 1) &^ (1<<fatAlign - 1)
		offsets = append(offsets, offset)
		for _, n := range []uint32{a.cpu, a.sub, offset, uint32(len(a.data)), fatAlign} {
			out.Write(be.AppendUint32(nil, n))
		}
		offset += uint32(len(a.data))
	}
	for i, a := range archs {
		out.Write(make([]byte, int(offsets[i])-out.Len()))
		out.Write(a.data)
	}
	return out.Bytes(), nil
}
