package webmcp

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Well-known SIDs that may hold rights on the runtime directory besides the
// user: the system, and the administrators, who can take any file anyway.
var trustedSIDs = []string{"S-1-5-18", "S-1-5-32-544"}

// checkDirPrivate checks that the directory dir is owned by the user and
// that its DACL lets in no one else (but the system and administrators).
func checkDirPrivate(dir string, _ os.FileInfo) error {
	mine, err := userSID()
	if err != nil {
		return err
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("runtime directory %s: cannot read its owner and access list: %w", dir, err)
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return untrusted(dir, "has no owner that can be read", "remove it (rmdir /s %s) and restart the browser", dir)
	}
	if !windows.EqualSid(owner, mine) {
		return untrusted(dir, fmt.Sprintf("is owned by %s, not by you (%s)", owner, mine),
			"another local user may be trying to stand in for your browser; have it removed, or set %s to a private directory for the browser and your agents alike", RuntimeDirEnv)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return untrusted(dir, "has no access list (everyone may enter)", "remove it (rmdir /s %s) and restart the browser", dir)
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("runtime directory %s: cannot read its access list: %w", dir, err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if windows.EqualSid(sid, mine) || trusted(sid) {
			continue
		}
		return untrusted(dir, fmt.Sprintf("is open to %s", sid),
			"check that no endpoint in it is someone else's, then remove it (rmdir /s %s) and restart the browser", dir)
	}
	return nil
}

// trusted says whether sid is one of trustedSIDs.
func trusted(sid *windows.SID) bool {
	for _, s := range trustedSIDs {
		if w, err := windows.StringToSid(s); err == nil && windows.EqualSid(sid, w) {
			return true
		}
	}
	return false
}

// checkEndpoint checks that path (fi, from Lstat) is a plain file: what it
// names is trusted only once the pipe's server is found to be the user's
// ([CheckPeer]).
func checkEndpoint(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return untrusted(path, "is not a host's endpoint file", "remove it (del %s)", path)
	}
	return nil
}

// mkdirPrivate creates the directory dir with an access list that lets in
// the user alone (and the system), inherited by what is made in it.
func mkdirPrivate(dir string) error {
	mine, err := userSID()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + mine.String() + ")(A;OICI;FA;;;SY)")
	if err != nil {
		return fmt.Errorf("make the runtime directory's access list: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return err
	}
	if err := windows.CreateDirectory(p, sa); err != nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return nil
}
