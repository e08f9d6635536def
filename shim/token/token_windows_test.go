package token

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/webmcp-bridge/bridge/internal/winacl"
	"golang.org/x/sys/windows"

	"github.com/webmcp-bridge/bridge/internal/bridgetest"
)

// assertPrivate checks that the token file at path is owned by the user
// and lets in no one else (the check Load makes, and no entry for
// Everyone).
func assertPrivate(t *testing.T, path string) {
	t.Helper()
	me, err := winacl.UserSID()
	if err != nil {
		t.Fatal(err)
	}
	sd, err := winacl.OfFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := winacl.Check(sd, me, winacl.UserOnly); err != nil {
		t.Errorf("token file %s (%s) %v, want it private", path, sd, err)
	}
	owner, _, _ := sd.Owner()
	if owner == nil || !windows.EqualSid(owner, me) {
		t.Errorf("token file owned by %v, want you (%s)", owner, me)
	}
}

// writePrivate writes a file at path that the user alone may read.
func writePrivate(t *testing.T, path, content string) {
	t.Helper()
	me, _ := winacl.UserSID()
	writeWithSD(t, path, "O:"+me.String()+"D:P(A;;FA;;;"+me.String()+")", content)
}

// writeWithSD writes a file at path with the security descriptor sddl.
func writeWithSD(t *testing.T, path, sddl, content string) {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		t.Fatal(err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	p, _ := windows.UTF16PtrFromString(path)
	h, err := windows.CreateFile(p, windows.GENERIC_WRITE, 0, sa, windows.CREATE_ALWAYS, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(h), path)
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// TestLoadRefusesOpenFile: a token file whose access list lets others in
// is refused, with the way out; one that lets in the user alone is read.
// (Wine keeps a file's access list as Unix modes, so Everyone is what can
// be tried here; internal/winacl's tests try the other ways.)
func TestLoadRefusesOpenFile(t *testing.T) {
	dir := bridgetest.TempDir(t)
	me, _ := winacl.UserSID()
	u := me.String()
	tok := strings.Repeat("a", 64) + "\n"
	open := filepath.Join(dir, FileName)
	writeWithSD(t, open, "O:"+u+"D:P(A;;FA;;;"+u+")(A;;FR;;;WD)", tok)
	if _, err := Load(open); err == nil || !strings.Contains(err.Error(), "is open to S-1-1-0") || !strings.Contains(err.Error(), "token --new") {
		t.Errorf("Load of a token open to Everyone = %v, want a refusal saying so and to run token --new", err)
	}
	ok := filepath.Join(dir, "ok")
	writePrivate(t, ok, tok)
	if tok, err := Load(ok); err != nil || tok != strings.Repeat("a", 64) {
		t.Errorf("Load of a private token = %q, %v; want it read", tok, err)
	}
}
