package webmcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// abandon leaves an endpoint at path whose pipe is gone, as a crashed host
// does, and returns path.
func abandon(t *testing.T, path string) string {
	t.Helper()
	ln, err := Listen(path + ".x")
	if err != nil {
		t.Fatal(err)
	}
	ln.(*pipeListener).closePipe() // the pipe goes, the file stays
	if err := os.Rename(path+".x", path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEndpointNamingAnythingElse: an endpoint file that names anything but
// a host's pipe on this machine (a remote server's pipe, a file) is never
// opened.
func TestEndpointNamingAnythingElse(t *testing.T) {
	dir := privateDir(t)
	for i, name := range []string{`\\server\pipe\webmcp-1-ab`, `C:\Windows\win.ini`, `\\.\pipe\other`, `\\.\pipe\webmcp-..\x`, ""} {
		path := SocketPath(dir, i+1)
		if err := os.WriteFile(path, []byte(name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if c, err := Dial(context.Background(), path); !errors.Is(err, ErrUntrusted) {
			if c != nil {
				c.Close()
			}
			t.Errorf("Dial(endpoint naming %q) = %v, want ErrUntrusted", name, err)
		}
	}
}

// TestRuntimeDirOpenToOthers: a runtime directory whose access list lets
// in everyone is refused; one that EnsureRuntimeDir made is not.
func TestRuntimeDirOpenToOthers(t *testing.T) {
	base := filepath.Dir(privateDir(t))
	open := filepath.Join(base, "open")
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	p, _ := windows.UTF16PtrFromString(open)
	if err := windows.CreateDirectory(p, sa); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(open) })
	for name, f := range map[string]func(string) error{"Ensure": EnsureRuntimeDir, "Check": CheckRuntimeDir} {
		if err := f(open); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "is open to S-1-1-0") {
			t.Errorf("%sRuntimeDir(open to everyone) = %v, want ErrUntrusted saying it is open to S-1-1-0", name, err)
		}
	}
}
