//go:build unix

package intruder

import (
	"os/exec"
	"syscall"
)

// runAs makes cmd run as u.
func runAs(cmd *exec.Cmd, u User) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
}

// supported says whether this package can act as another user here.
func supported() error { return nil }
