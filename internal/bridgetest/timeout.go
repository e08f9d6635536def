package bridgetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
)

// Timeout bounds every wait of a test. Nothing should come near it: it only
// turns a hang into a failure. It is wide because CI runs every package at
// once with -race: a 3 MiB call through the host (TestLargeCallGoesAsChunks)
// takes about 10 s so on a quiet machine, and once took over 30 s under load.
const Timeout = 2 * time.Minute

// Context is t's context bounded by [Timeout].
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

// RuntimeDir is a private runtime directory (mode 0700) for one test,
// removed when the test ends. Its path is short, since a Unix socket's path
// is limited to about 100 bytes.
func RuntimeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if runtime.GOOS == "windows" {
		// A new directory in the temporary one inherits its access list;
		// the runtime directory must be private (endpoint.EnsureRuntimeDir).
		dir = filepath.Join(dir, "r")
		if err := endpoint.EnsureRuntimeDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Await returns the next value from ch, and fails the test when ctx ends
// first.
func Await[T any](ctx context.Context, t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", what, ctx.Err())
	}
	panic("unreachable")
}

// UnixOnly skips t on Windows: it tests what only Unix sockets and file
// modes do (why says what); the Windows counterparts are tested apart.
func UnixOnly(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Unix only: " + why)
	}
}
