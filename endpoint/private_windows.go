package endpoint

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/webmcp-bridge/bridge/internal/winacl"
)

// checkDirPrivate checks that the directory dir is the user's alone: owned
// by the user, or by the system or the Administrators (a folder that one of
// the user's elevated processes made is owned by the Administrators group,
// and they could take any folder anyway), with an access list that lets in
// no one else but the system and the Administrators, not even into what is
// made in it ([winacl.Check]). Nothing is changed: a folder that fails is
// refused, with what to do.
func checkDirPrivate(dir string, _ os.FileInfo) error {
	mine, err := userSID()
	if err != nil {
		return err
	}
	sd, err := winacl.OfFile(dir)
	if err != nil {
		return fmt.Errorf("runtime directory %s: cannot read its owner and access list: %w", dir, err)
	}
	if err := winacl.Check(sd, mine, winacl.UserOrAdmins); err != nil {
		return untrusted(dir, err.Error(),
			"another local user may be trying to stand in for your browser: check that no endpoint in it is someone else's, then remove it (rmdir /s %s) and restart the browser, or set %s to a private directory for the browser and your agents alike", dir, RuntimeDirEnv)
	}
	return nil
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

// mkdirPrivate creates the directory dir, owned by the user (even when the
// process is elevated), with an access list that lets in the user alone
// (and the system), inherited by what is made in it.
func mkdirPrivate(dir string) error {
	mine, err := userSID()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString("O:" + mine.String() + "D:P(A;OICI;FA;;;" + mine.String() + ")(A;OICI;FA;;;SY)")
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
