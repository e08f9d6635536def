package endpoint

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// pipeListener serves a host's named pipe. It keeps one instance of the
// pipe waiting for a client at all times, so that a shim never finds the
// name gone while the host runs; the first is created with
// FILE_FLAG_FIRST_PIPE_INSTANCE, so that the host fails rather than share
// a name someone else created first. (go-winio's ListenPipe keeps its first
// instance without read and write access, which Wine does not treat as
// Windows does: clients connect to it and are never accepted.)
type pipeListener struct {
	path, pipe string
	name16     *uint16
	sa         *windows.SecurityAttributes

	acceptMu sync.Mutex     // one Accept at a time; Close waits for it
	next     windows.Handle // the instance waiting for a client; 0 once closed
	closeEv  windows.Handle // set by Close, ends a waiting Accept
	once     sync.Once
}

// newInstance creates an instance of the pipe.
func (l *pipeListener) newInstance(first bool) (windows.Handle, error) {
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	h, err := windows.CreateNamedPipe(l.name16, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
	if err != nil {
		if first && (errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY)) {
			return 0, fmt.Errorf("the named pipe %s exists already, made by someone else: %w", l.pipe, ErrUntrusted)
		}
		return 0, fmt.Errorf("create the named pipe %s: %w", l.pipe, err)
	}
	return h, nil
}

// Accept waits for a client on the waiting instance, puts a new instance
// in its place, and returns the connection.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.acceptMu.Lock()
	defer l.acceptMu.Unlock()
	h := l.next
	if h == 0 {
		return nil, net.ErrClosed
	}
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(ev)
	// The event's low bit keeps the completion off any completion port.
	ov := windows.Overlapped{HEvent: ev | 1}
	err = windows.ConnectNamedPipe(h, &ov)
	switch {
	case errors.Is(err, windows.ERROR_IO_PENDING):
		w, werr := windows.WaitForMultipleObjects([]windows.Handle{ev, l.closeEv}, false, windows.INFINITE)
		if werr != nil || w != windows.WAIT_OBJECT_0 {
			windows.CancelIoEx(h, &ov)
			var n uint32
			windows.GetOverlappedResult(h, &ov, &n, true)
			return nil, net.ErrClosed
		}
		var n uint32
		if err := windows.GetOverlappedResult(h, &ov, &n, false); err != nil {
			return nil, fmt.Errorf("accept on %s: %w", l.pipe, err)
		}
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
	default:
		return nil, fmt.Errorf("accept on %s: %w", l.pipe, err)
	}
	next, err := l.newInstance(false)
	if err != nil {
		windows.CloseHandle(h)
		l.next = 0
		return nil, err
	}
	l.next = next
	f, err := winio.NewOpenFile(h)
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &pipeConn{f: f.(pipeFile), addr: pipeAddr(l.path)}, nil
}

// Addr is the endpoint file's path, which shims dial, as on Unix.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.path) }

// Close removes the endpoint file, if it still names this pipe, ends a
// waiting Accept and closes the waiting instance.
func (l *pipeListener) Close() error {
	l.once.Do(func() {
		if name, err := readEndpoint(l.path); err == nil && name == l.pipe {
			removeFile(l.path)
		}
		windows.SetEvent(l.closeEv)
		l.acceptMu.Lock()
		if l.next != 0 {
			windows.CloseHandle(l.next)
			l.next = 0
		}
		l.acceptMu.Unlock()
	})
	return nil
}

// closePipe closes the pipe but leaves the endpoint file, as a crash does.
func (l *pipeListener) closePipe() {
	l.once.Do(func() {
		windows.SetEvent(l.closeEv)
		l.acceptMu.Lock()
		windows.CloseHandle(l.next)
		l.next = 0
		l.acceptMu.Unlock()
	})
}

// pipeFile is what go-winio's NewOpenFile returns.
type pipeFile interface {
	io.ReadWriteCloser
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
	Fd() uintptr
}

// pipeConn is the host's end of a connection on its pipe.
type pipeConn struct {
	f    pipeFile
	addr pipeAddr
}

func (c *pipeConn) Read(b []byte) (int, error)  { return c.f.Read(b) }
func (c *pipeConn) Write(b []byte) (int, error) { return c.f.Write(b) }
func (c *pipeConn) Close() error                { return c.f.Close() }
func (c *pipeConn) LocalAddr() net.Addr         { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr        { return c.addr }
func (c *pipeConn) SetDeadline(t time.Time) error {
	if err := c.f.SetReadDeadline(t); err != nil {
		return err
	}
	return c.f.SetWriteDeadline(t)
}
func (c *pipeConn) SetReadDeadline(t time.Time) error  { return c.f.SetReadDeadline(t) }
func (c *pipeConn) SetWriteDeadline(t time.Time) error { return c.f.SetWriteDeadline(t) }

// Fd is the pipe's handle, for [CheckPeer].
func (c *pipeConn) Fd() uintptr { return c.f.Fd() }

// pipeBuffer is the size the pipe's buffers are asked for in each
// direction, near what a Unix socket holds.
const pipeBuffer = 1 << 20
