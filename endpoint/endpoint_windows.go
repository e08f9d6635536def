package endpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// endpointExt ends the name of a host's endpoint in the runtime directory.
// On Windows the endpoint is a small file that names the host's named
// pipe: the runtime directory lists the hosts as on Unix (a host's pid in
// the file's name, stale files after a crash), and the pipe's name is
// random, so that no one can create it before the host (a pipe's name is
// open to every user of the machine).
const endpointExt = ".pipe"

// EndpointNoun names a host's endpoint in messages: on Windows it is the
// file that names the host's pipe.
const EndpointNoun = "host endpoint"

// pipePrefix begins the name of every host's pipe. [Dial] opens no other
// name, so a file in the runtime directory cannot send a shim to a remote
// server or another device.
const pipePrefix = `\\.\pipe\webmcp-`

// maxEndpointFile bounds what [Dial] reads from an endpoint file.
const maxEndpointFile = 256

// Listen creates the host's named pipe, then the file at path that names
// it. The pipe's security descriptor makes the user its owner and lets in
// the user alone (a protected DACL with one entry: the user's SID), it is created only if no pipe of
// that name exists (FILE_CREATE: the first instance), and it refuses
// remote clients. Closing the listener removes the file and the pipe.
func Listen(path string) (net.Listener, error) {
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("name the host's pipe: %w", err)
	}
	name := pipePrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b)
	sd, err := windows.SecurityDescriptorFromString("O:" + sid.String() + "D:P(A;;GA;;;" + sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("make the pipe's access list: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	closeEv, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	ln := &pipeListener{path: path, pipe: name, sa: sa, closeEv: closeEv}
	if ln.name16, err = windows.UTF16PtrFromString(name); err != nil {
		return nil, err
	}
	if ln.next, err = ln.newInstance(true); err != nil {
		return nil, err
	}
	// The file appears whole or not at all: written aside, then renamed.
	tmp := path + ".tmp-" + hex.EncodeToString(b[:4])
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("write the host's endpoint %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		removeFile(tmp)
		ln.Close()
		return nil, fmt.Errorf("write the host's endpoint %s: %w", path, err)
	}
	return ln, nil
}

// pipeAddr is the address of a host's endpoint: its file's path.
type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// Dial connects to the host's named pipe that the endpoint file at path
// names. A file that names anything but a host's pipe on this machine is
// refused ([ErrUntrusted]). Callers run [CheckSocket] before and
// [CheckPeer] after: the pipe's server must be a process of the user.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	name, err := readEndpoint(path)
	if err != nil {
		return nil, err
	}
	c, err := winio.DialPipeContext(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("host endpoint %s: %w", path, err)
	}
	return c, nil
}

// readEndpoint reads the pipe name in the endpoint file at path.
func readEndpoint(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("host endpoint %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEndpointFile+1))
	if err != nil {
		return "", fmt.Errorf("host endpoint %s: %w", path, err)
	}
	name := strings.TrimSpace(string(b))
	rest, ok := strings.CutPrefix(name, pipePrefix)
	if !ok || len(b) > maxEndpointFile || rest == "" || strings.Trim(rest, "0123456789abcdef-") != "" {
		return "", untrusted(path, "does not name a host's pipe", "remove it (del %s)", path)
	}
	return name, nil
}

// removeFile removes the file at path.
func removeFile(path string) { os.Remove(path) }
