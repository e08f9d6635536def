package endpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// squatEnv makes a run of this test binary a squatter (see
// TestSquatterProcess): its value is the security descriptor of its pipe,
// "null" for a NULL DACL.
const squatEnv = "WEBMCP_TEST_SQUAT"

// TestSquatterProcess is not a test: run by squat, it creates a pipe named
// as a host's with a looser security descriptor, prints its name and waits
// until its stdin closes.
func TestSquatterProcess(t *testing.T) {
	how := os.Getenv(squatEnv)
	if how == "" {
		t.Skip("run by squat only")
	}
	var sd *windows.SECURITY_DESCRIPTOR
	var err error
	if how == "null" {
		var me *windows.SID
		if me, err = userSID(); err == nil {
			sd, err = windows.NewSecurityDescriptor()
		}
		if err == nil {
			err = sd.SetOwner(me, false)
		}
		if err == nil {
			err = sd.SetDACL(nil, true, false)
		}
	} else {
		sd, err = windows.SecurityDescriptorFromString(how)
	}
	if err != nil {
		t.Fatal(err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	name := pipePrefix + strconv.Itoa(os.Getpid()) + "-5c0ff5"
	n16, _ := windows.UTF16PtrFromString(name)
	h, err := windows.CreateNamedPipe(n16, windows.PIPE_ACCESS_DUPLEX|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE, windows.PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, sa)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	fmt.Println(name)
	io.Copy(io.Discard, os.Stdin)
}

// squat starts another process that creates a pipe named as a host's,
// with the security descriptor sddl ("null": a NULL DACL), and writes an
// endpoint file naming it in dir, as one who got there first would; it
// returns the endpoint's path. The process ends with the test.
func squat(t *testing.T, dir, sddl string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSquatterProcess$")
	cmd.Env = append(os.Environ(), squatEnv+"="+sddl)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the squatter said %q: %v", line, err)
	}
	path := SocketPath(dir, cmd.Process.Pid)
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSquattedEndpointRefused: an endpoint whose pipe another process
// created with a looser security descriptor (a NULL DACL, Everyone in, an
// owner that is not the user) is refused by the dialling side before
// anything is sent (CheckPeer), while a host's own pipe passes.
func TestSquattedEndpointRefused(t *testing.T) {
	dir := privateDir(t)
	me, err := userSID()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sddl, want string }{
		{"null", "NULL DACL"},
		{"O:" + me.String() + "D:P(A;;GA;;;WD)", "is open to S-1-1-0"},
		{"O:" + me.String() + "D:P(A;;GA;;;" + me.String() + ")(A;;GR;;;AU)", "is open to S-1-5-11"},
		{"O:BAD:P(A;;GA;;;" + me.String() + ")", "is owned by S-1-5-32-544"},
	} {
		path := squat(t, dir, c.sddl)
		if err := CheckSocket(path); err != nil {
			t.Fatalf("CheckSocket(%s) = %v: the file is the user's, only its pipe is not", path, err)
		}
		conn, err := Dial(t.Context(), path)
		if err != nil {
			t.Fatalf("Dial(squatted %s) = %v", c.sddl, err)
		}
		_, err = CheckPeer(conn)
		conn.Close()
		if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckPeer(pipe with %s) = %v, want ErrUntrusted saying %q", c.sddl, err, c.want)
		}
	}
}
