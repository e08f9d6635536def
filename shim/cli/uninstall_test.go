package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/installrec"
)

// webmcp-shim uninstall names the command that uninstalls its install, and
// --help says how to uninstall.
func TestUninstallAdvice(t *testing.T) {
	prefix := t.TempDir()
	bin := filepath.Join(prefix, "bin")
	got := uninstallAdvice(bin)
	if want := filepath.Join(bin, installrec.Exe("webmcp-host")) + " uninstall\n"; !strings.Contains(got, "  "+want) {
		t.Errorf("without a record:\n%s\nwant the line %q", got, want)
	}
	rec := &installrec.Record{Path: installrec.PathFor(bin), Installer: "npx webmcp-bridge install"}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	got = uninstallAdvice(bin)
	for _, want := range []string{quote(filepath.Join(bin, installrec.Exe("webmcp-host"))) + " uninstall --prefix " + quote(prefix) + "\n", "npx webmcp-bridge uninstall does the same", "register --write"} {
		if !strings.Contains(got, want) {
			t.Errorf("with a record:\n%s\nlacks %q", got, want)
		}
	}
	os.Remove(rec.Path)
	if !strings.Contains(Usage(), "webmcp-shim uninstall") || !strings.Contains(Usage(), "webmcp-host uninstall --prefix PREFIX") {
		t.Errorf("--help does not say how to uninstall:\n%s", Usage())
	}
}
