package manifest_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/webmcp-bridge/bridge/manifest"
)

// The registry functions against the registry (under Wine, its own), in a
// key of the test's own that it removes.
func TestRegistry(t *testing.T) {
	base := fmt.Sprintf(`Software\webmcp-bridge-test-%d`, os.Getpid())
	key := base + `\Vendor\NativeMessagingHosts\dev.webmcp.bridge`
	t.Cleanup(func() {
		manifest.RemoveRegistry(key)
		for _, k := range []string{base + `\Vendor\NativeMessagingHosts`, base + `\Vendor`, base} {
			manifest.RemoveEmptyKey(k)
		}
	})
	if _, err := manifest.ReadRegistry(key); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadRegistry of a missing key = %v, want fs.ErrNotExist", err)
	}
	created, err := manifest.WriteRegistry(key, `C:\x\dev.webmcp.bridge.json`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{base, base + `\Vendor`, base + `\Vendor\NativeMessagingHosts`, key}
	if fmt.Sprint(created) != fmt.Sprint(want) {
		t.Errorf("created %v, want %v", created, want)
	}
	if v, err := manifest.ReadRegistry(key); err != nil || v != `C:\x\dev.webmcp.bridge.json` {
		t.Errorf("ReadRegistry = %q, %v", v, err)
	}
	// Again: nothing created.
	if created, err := manifest.WriteRegistry(key, `C:\y.json`); err != nil || len(created) != 0 {
		t.Errorf("second WriteRegistry created %v, %v", created, err)
	}
	// A key that holds another key is not removed.
	if _, err := manifest.WriteRegistry(base+`\Vendor\Other`, "x"); err != nil {
		t.Fatal(err)
	}
	if ok, err := manifest.RemoveEmptyKey(base + `\Vendor`); ok || err != nil {
		t.Errorf("RemoveEmptyKey of a key with a subkey = %v, %v", ok, err)
	}
	if err := manifest.RemoveRegistry(base + `\Vendor\Other`); err != nil {
		t.Fatal(err)
	}
	if err := manifest.RemoveRegistry(key); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.ReadRegistry(key); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after RemoveRegistry: %v, want fs.ErrNotExist", err)
	}
	if err := manifest.RemoveRegistry(key); err != nil {
		t.Errorf("RemoveRegistry of a missing key: %v", err)
	}
	for _, k := range []string{base + `\Vendor\NativeMessagingHosts`, base + `\Vendor`, base} {
		if ok, err := manifest.RemoveEmptyKey(k); !ok || err != nil {
			t.Errorf("RemoveEmptyKey(%s) = %v, %v", k, ok, err)
		}
	}
}
