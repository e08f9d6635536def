package profiling_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/profiling"
)

func TestStartWritesAProfileOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(profiling.Env, "")
	profiling.Start("none")()
	if got, _ := filepath.Glob(filepath.Join(dir, "*")); len(got) != 0 {
		t.Fatalf("profiles without %s: %v", profiling.Env, got)
	}
	t.Setenv(profiling.Env, dir)
	stop := profiling.Start("webmcp-test")
	stop()
	got, _ := filepath.Glob(filepath.Join(dir, "webmcp-test-*.pprof"))
	if len(got) != 1 {
		t.Fatalf("profiles = %v, want one", got)
	}
	if fi, err := os.Stat(got[0]); err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("profile %s: %v %v", got[0], fi, err)
	}
}
