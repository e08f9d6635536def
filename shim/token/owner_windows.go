package token

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/webmcp-bridge/bridge/internal/winacl"
	"golang.org/x/sys/windows"
)

// checkPrivate refuses the token file at path unless the user owns it and
// its access list lets in no one else (but the system and the
// Administrators, who can read any file anyway): file modes say nothing
// on Windows, its security descriptor does ([winacl.Check]).
func checkPrivate(path string, _ fs.FileInfo) error {
	me, err := winacl.UserSID()
	if err != nil {
		return err
	}
	sd, err := winacl.OfFile(path)
	if err != nil {
		return fmt.Errorf("the HTTP token %s: cannot read its owner and access list (%v): run webmcp-shim token --new to make a new one", path, err)
	}
	if err := winacl.Check(sd, me, winacl.UserOnly); err != nil {
		return fmt.Errorf("the HTTP token %s %v: anyone who read it can use your browser's tools; run webmcp-shim token --new to make a new one", path, err)
	}
	return nil
}

// createPrivate creates a new file in dir for the token, owned by the user
// and with an access list that lets in the user alone, protected from what
// the folder passes on: made so, not changed after, so that no one could
// open it in between.
func createPrivate(dir string) (*os.File, error) {
	me, err := winacl.UserSID()
	if err != nil {
		return nil, err
	}
	sa, err := winacl.Private(me, false)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, FileName+"."+hex.EncodeToString(b))
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE|windows.DELETE, 0, sa,
		windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}
