package bridgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/webmcp-bridge/bridge/endpoint"
)

// The binaries' packages, for [Binary].
const (
	HostPackage = "github.com/webmcp-bridge/bridge/cmd/webmcp-host"
	ShimPackage = "github.com/webmcp-bridge/bridge/cmd/webmcp-shim"
)

// BinDirEnv names a directory of prebuilt binaries (webmcp-host,
// webmcp-shim; .exe on Windows) that [Binary] uses instead of building
// them: for tests run where no Go toolchain is, e.g. the Windows build of
// the tests under Wine.
const BinDirEnv = "WEBMCP_TEST_BIN_DIR"

// exeSuffix ends the name of an executable on this system.
func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

var bins struct {
	mu    sync.Mutex
	dir   string            // set by Main
	built map[string]string // package -> binary
}

// Main runs the tests of m and then removes the binaries that [Binary]
// built. Call it from TestMain:
//
//	func TestMain(m *testing.M) { bridgetest.Main(m) }
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "webmcp-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Binary returns the path of the command built from pkg (e.g.
// [HostPackage]), building it the first time it is asked for in this test
// binary: with -race when the tests run with it, so that a race in the child
// fails the test (see [Log]).
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	bins.mu.Lock()
	defer bins.mu.Unlock()
	if bins.dir == "" {
		t.Fatal("bridgetest.Binary needs bridgetest.Main in TestMain")
	}
	if bin, ok := bins.built[pkg]; ok {
		return bin
	}
	if d := os.Getenv(BinDirEnv); d != "" {
		bin := filepath.Join(d, filepath.Base(pkg)+exeSuffix())
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("%s is set, but: %v", BinDirEnv, err)
		}
		return bin
	}
	bin := filepath.Join(bins.dir, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
	if err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	if bins.built == nil {
		bins.built = map[string]string{}
	}
	bins.built[pkg] = bin
	return bin
}

// GoRace is the GORACE setting for a child process: the test's own
// options, and no pause at exit (a -race binary sleeps a second before it
// exits by default; a race it found is reported when it happens, and still
// makes it exit with status 66).
func GoRace() string {
	return strings.TrimSpace("GORACE=" + os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// ChildEnv is the environment of a child process whose runtime directory is
// dir.
func ChildEnv(dir string) []string {
	return append(os.Environ(), endpoint.RuntimeDirEnv+"="+dir, GoRace())
}
