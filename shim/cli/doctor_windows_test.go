package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/webmcp-bridge/bridge/endpoint"
)

// TestDoctorSquattedPipe: an endpoint file in the user's runtime folder
// that names a pipe which lets everyone in (a NULL DACL: a pipe created
// first by someone else, not a host's) is reported by doctor as a possible
// attack, and nothing is sent to it: not even the hello.
func TestDoctorSquattedPipe(t *testing.T) {
	base, err := os.MkdirTemp("", "wm")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "run")
	if err := endpoint.EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	pipeFile := endpoint.SocketPath(dir, os.Getpid())
	t.Cleanup(func() { os.Remove(pipeFile); os.Remove(dir); os.Remove(base) })

	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	sd.SetOwner(tu.User.Sid, false)
	if err := sd.SetDACL(nil, true, false); err != nil {
		t.Fatal(err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	name := `\\.\pipe\webmcp-` + "1-5c0ff5"
	n16, _ := windows.UTF16PtrFromString(name)
	h, err := windows.CreateNamedPipe(n16, windows.PIPE_ACCESS_DUPLEX|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE, windows.PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, sa)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := os.WriteFile(pipeFile, []byte(name+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// What the pipe receives, once doctor's connection ends.
	received := make(chan int, 1)
	go func() {
		windows.ConnectNamedPipe(h, nil)
		n, buf := 0, make([]byte, 4096)
		for {
			var got uint32
			if err := windows.ReadFile(h, buf, &got, nil); err != nil {
				break
			}
			n += int(got)
		}
		received <- n
	}()

	r := runCLI(context.Background(), t, dir, "", "doctor")
	r.expect(t, "doctor", ExitFail)
	want := "POSSIBLE ATTACK: host endpoint " + pipeFile
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "NULL DACL") || !strings.Contains(r.stdout, `del "`+pipeFile+`"`) {
		t.Errorf("doctor does not report the squatted pipe (want %q, NULL DACL and the del command):\n%s", want, r.stdout)
	}
	if n := <-received; n != 0 {
		t.Errorf("doctor sent %d bytes to the squatted pipe, want none", n)
	}
}
