package cli

// The agents' own CLIs run the prompt hook that `register --write`
// installed, and send what it printed to the model: each CLI runs one
// prompt non-interactively against a fake model server on loopback, which
// records the requests and answers 400 (no model is reachable in tests).
// Like TestAgentsReadRegister, this needs WEBMCP_NPM_TOOLS (see
// npmclients_test.go).

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// fakeModel serves until the test ends and keeps the bodies of the
// requests it gets.
type fakeModel struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func startFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, r.URL.Path+" "+string(b))
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"no model here (a test)"}}`)
	}))
	t.Cleanup(m.Close)
	return m
}

// sent says whether a request held s (as a JSON string holds it).
func (m *fakeModel) sent(s string) bool {
	var q strings.Builder
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.bodies {
		if strings.Contains(b, strings.Trim(strings.TrimSpace(q.String()), `"`)) {
			return true
		}
	}
	return false
}

func TestAgentsSendContext(t *testing.T) {
	node, tools := npmTools(t)
	shimBin := bridgetest.Binary(t, "github.com/webmcp-bridge/bridge/cmd/webmcp-shim")
	c := bridgetest.TraceContext(`Selected slice "CommitNavigation" (12.3 ms on CrBrowserMain)`, time.Now())
	dir, _, _ := contextHost(t, &c)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a hang guard for three agents' CLIs
	defer cancel()
	for _, tc := range []struct {
		client string
		bin    string // relative to node_modules
		args   func(url string) []string
		env    func(url string) []string
		setup  func(t *testing.T, home, project string)
	}{
		{client: "claude", bin: "@anthropic-ai/claude-code/bin/claude.exe",
			args: func(string) []string { return []string{"-p", "hello"} },
			env:  func(url string) []string { return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=test-key"} }},
		{client: "codex", bin: ".bin/codex",
			args: func(url string) []string {
				return []string{"exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "-c", "model_provider=fake",
					"-c", `model_providers.fake={name="fake",base_url="` + url + `/v1",env_key="FAKE_MODEL_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`, "hello"}
			},
			env: func(string) []string { return []string{"FAKE_MODEL_KEY=test-key"} }},
		{client: "gemini", bin: ".bin/gemini",
			args: func(string) []string { return []string{"-p", "hello"} },
			env:  func(url string) []string { return []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_API_KEY=test-key"} },
			setup: func(t *testing.T, home, project string) {
				// What trusting the folder and choosing an API key in
				// Gemini CLI write.
				os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+project+`":"TRUST_FOLDER"}`), 0o644)
				path := filepath.Join(home, ".gemini", "settings.json")
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				var v map[string]any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatal(err)
				}
				v["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
				b, _ = json.Marshal(v)
				os.WriteFile(path, b, 0o644)
			}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			bin := filepath.Join(tools, "node_modules", tc.bin)
			if _, err := os.Stat(bin); err != nil {
				bridgetest.SkipOutsideCI(t, "no "+tc.bin+" in WEBMCP_NPM_TOOLS (.ci/run installs it)")
			}
			home := bridgetest.TempDir(t)
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("CODEX_HOME", "")
			project := filepath.Join(home, "project")
			os.MkdirAll(project, 0o755)
			runCLI(ctx, t, dir, "", "register", tc.client, "--write", "--shim", shimBin).expect(t, "register "+tc.client, 0)
			if tc.setup != nil {
				tc.setup(t, home, project)
			}
			model := startFakeModel(t)
			args := tc.args(model.URL)
			var cmd *exec.Cmd
			if strings.HasPrefix(tc.bin, ".bin/") {
				cmd = exec.CommandContext(ctx, node, append([]string{bin}, args...)...)
			} else {
				cmd = exec.CommandContext(ctx, bin, args...)
			}
			cmd.Dir = project
			cmd.Env = append(os.Environ(), append(tc.env(model.URL), endpoint.RuntimeDirEnv+"="+dir, "NO_COLOR=1")...)
			out, err := cmd.CombinedOutput() // fails: the model answers 400
			// Gemini CLI escapes the hook's text (&lt;ui_context&gt;) and
			// wraps it in <hook_context>.
			tag := model.sent("<ui_context>\ntab 12 ") || model.sent("&lt;ui_context&gt;\ntab 12 ")
			if !tag || !model.sent(`trace.Timeline#selection: Selected slice "CommitNavigation"`) {
				t.Errorf("%s sent the model no <ui_context> from the hook (exit: %v); its output:\n%s\nthe requests:\n%s", tc.client, err, out, strings.Join(model.bodies, "\n"))
			}
		})
	}
}
