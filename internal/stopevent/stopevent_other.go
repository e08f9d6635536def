//go:build !windows

package stopevent

import (
	"context"
	"errors"
)

// Notify returns a copy of parent; on Unix SIGTERM stops the process.
func Notify(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(parent)
}

// Signal is for Windows only; on Unix send SIGTERM.
func Signal(pid int) error {
	return errors.New("stop events are for Windows: send SIGTERM")
}
