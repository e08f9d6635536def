package register

import (
	"fmt"
	"path/filepath"
)

// claudeDesktop is the plan for Claude Desktop, which reads its MCP
// servers from claude_desktop_config.json (Settings → Developer → Edit
// Config opens it) when it starts: in ~/Library/Application Support/Claude
// on macOS and %APPDATA%\Claude on Windows. It has no Linux build and no
// project settings.
func claudeDesktop(env Env) (*Plan, error) {
	if env.Project != "" {
		return nil, fmt.Errorf("no project settings in Claude Desktop: register it without --project")
	}
	var dir string
	switch env.GOOS {
	case "darwin":
		dir = filepath.Join(env.Home, "Library", "Application Support", "Claude")
	case "windows":
		appData := env.AppData
		if appData == "" {
			appData = filepath.Join(env.Home, "AppData", "Roaming")
		}
		dir = filepath.Join(appData, "Claude")
	default:
		return nil, fmt.Errorf("no %s build of Claude Desktop: it runs on macOS and Windows only", env.GOOS)
	}
	return &Plan{
		Client: "Claude Desktop",
		Edits:  []*Edit{serverEntry(filepath.Join(dir, "claude_desktop_config.json"), "mcpServers", spec{Command: env.Shim, Args: []string{}})},
		Notes: []string{"Quit Claude Desktop (from its menu: closing the window is not enough) and start it again: it reads the file when it starts. " +
			"Settings → Developer then lists webmcp as running."},
	}, nil
}
