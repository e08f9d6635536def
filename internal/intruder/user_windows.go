package intruder

import (
	"errors"
	"os/exec"
)

// runAs does nothing on Windows: [Need] skips every test before.
func runAs(*exec.Cmd, User) {}

// supported says that acting as another user is not written for Windows.
func supported() error {
	return errors.New("not supported on Windows yet: acting as another local user in tests")
}
