package endpoint

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code of a process that runs (STILL_ACTIVE).
const stillActive = 259

// processGone reports whether no process has the given pid. A process that
// cannot be opened (another user's) exists.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code != stillActive
}

// refused reports whether err says that no pipe has the name that an
// endpoint file gives: the host that made it is gone.
func refused(err error) bool { return errors.Is(err, windows.ERROR_FILE_NOT_FOUND) }

// userSID is the SID of the user this process runs as.
func userSID() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("read your user's SID: %w", err)
	}
	return tu.User.Sid, nil
}

// processSID is the SID of the user that process pid runs as.
func processSID(pid uint32) (*windows.SID, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, err
	}
	defer tok.Close()
	tu, err := tok.GetTokenUser()
	if err != nil {
		return nil, err
	}
	return tu.User.Sid.Copy()
}
