//go:build linux

package host_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
	"github.com/webmcp-bridge/bridge/internal/fakeext"
)

// TestOtherUserRefused connects to the host as another user, which needs
// root to arrange: the test opens the runtime directory and socket to
// everyone, so that only the host's peer-credential check stands in the way.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		bridgetest.SkipOutsideCI(t, "needs root to connect as another user")
	}
	const nobody = 65534
	ctx := testCtx(t)
	ext, log := start(t, nil, fakeext.Options{})
	dir := filepath.Dir(ext.Socket())
	for path, mode := range map[string]os.FileMode{filepath.Dir(dir): 0o755, dir: 0o711, ext.Socket(): 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	// The client is this test binary (see dialHelper), copied to where
	// the other user may run it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(filepath.Dir(dir), "client")
	copyFile(t, self, client)

	cmd := exec.CommandContext(ctx, client)
	cmd.Env = append(os.Environ(), dialEnv+"="+ext.Socket(), goraceEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client: %v: %s", err, out)
	}
	// It was connected and closed without a byte: no hello, no state.
	if !strings.Contains(string(out), "closed after 0 bytes") {
		t.Errorf("client as uid %d: %s, want the connection closed at once", nobody, out)
	}
	if _, err := log.await(ctx, "refused a connection", "uid 65534"); err != nil {
		t.Error(err)
	}
	// The owner is still served.
	dial(ctx, t, ext.Socket())
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
