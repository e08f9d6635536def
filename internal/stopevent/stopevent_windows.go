package stopevent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/webmcp-bridge/bridge/internal/winacl"
	"golang.org/x/sys/windows"
)

// Notify creates this process's stop event, owned by the user and open to
// the user alone, and returns a context that ends when it is set (or when
// parent ends). An event of that name that exists already is someone
// else's: it is not used (setting it could stop this process), and the
// process runs without one; [Signal]'s callers then end it otherwise.
func Notify(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ev, err := create()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: no stop event (%v): an uninstall ends this process without asking it\n", self(), err)
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		w, _ := windows.WaitForMultipleObjects([]windows.Handle{ev.h, ev.quit}, false, windows.INFINITE)
		if w == windows.WAIT_OBJECT_0 {
			cancel(errors.New("asked to stop (its stop event was set)"))
		}
		close(done)
	}()
	return ctx, func() {
		windows.SetEvent(ev.quit)
		<-done
		windows.CloseHandle(ev.h)
		windows.CloseHandle(ev.quit)
		cancel(nil)
	}
}

// event is a stop event and the event that ends the wait on it.
type event struct{ h, quit windows.Handle }

// create creates this process's stop event.
func create() (*event, error) {
	me, err := winacl.UserSID()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString("O:" + me.String() + "D:P(A;;GA;;;" + me.String() + ")")
	if err != nil {
		return nil, err
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	name, err := windows.UTF16PtrFromString(Name(os.Getpid()))
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateEvent(sa, 1, 0, name)
	if errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("the event %s exists already, made by another process", Name(os.Getpid()))
	}
	if err != nil {
		return nil, err
	}
	quit, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &event{h: h, quit: quit}, nil
}

// Signal sets the stop event of process pid, once it has checked that the
// event is the user's alone (an event another made in its name is not
// set). An error says that pid has none that may be set: it runs a
// binary from before stop events, or it is not the user's.
func Signal(pid int) error {
	name, err := windows.UTF16PtrFromString(Name(pid))
	if err != nil {
		return err
	}
	h, err := windows.OpenEvent(windows.EVENT_MODIFY_STATE|windows.READ_CONTROL, false, name)
	if err != nil {
		return fmt.Errorf("no stop event of process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	me, err := winacl.UserSID()
	if err != nil {
		return err
	}
	sd, err := winacl.OfHandle(h)
	if err != nil {
		return fmt.Errorf("the stop event of process %d: %w", pid, err)
	}
	if err := winacl.Check(sd, me, winacl.UserOnly); err != nil {
		return fmt.Errorf("the stop event of process %d %v: not set", pid, err)
	}
	return windows.SetEvent(h)
}

// self names this program for a message.
func self() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return "webmcp"
}
