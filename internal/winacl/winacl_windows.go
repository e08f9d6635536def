package winacl

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Well-known SIDs.
const (
	System         = "S-1-5-18"     // LocalSystem
	Administrators = "S-1-5-32-544" // BUILTIN\Administrators
	creatorOwner   = "S-1-3-0"      // CREATOR OWNER: whoever creates a child
)

// trusted are the SIDs that may hold rights besides the user: the system
// and the administrators, who can take any file of the machine anyway
// (they hold the privileges to), so an entry for them opens nothing.
var trusted = []string{System, Administrators}

// Owners says which owners [Check] accepts.
type Owners int

const (
	// UserOnly accepts the user's own SID alone as the owner.
	UserOnly Owners = iota
	// UserOrAdmins also accepts the system and the Administrators group:
	// what a folder made by one of the user's elevated processes is owned
	// by (an elevated token's default owner is Administrators), and no
	// one who could not take it anyway.
	UserOrAdmins
)

// UserSID is the SID of the user this process runs as.
func UserSID() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("read your user's SID: %w", err)
	}
	return tu.User.Sid.Copy()
}

// Check says what in sd lets someone other than the user (me) in, or nil
// when nothing does. The owner must be the user (or, with UserOrAdmins,
// the system or the Administrators); the DACL must exist (a NULL DACL lets
// everyone in) and every entry that allows anything must be for the user,
// the system or the Administrators. That includes entries that only pass
// to what is made inside (inherit-only), which would open the files made
// in a folder, except CREATOR OWNER's, which becomes the creator's own. An
// allowing entry of a kind that is not read here (object, callback,
// compound) is refused rather than guessed at. Entries that deny are
// never looser.
//
// The error says what is wrong, as the end of a sentence that begins with
// the object's name: "is owned by S-1-5-21-…, not by you (…)".
func Check(sd *windows.SECURITY_DESCRIPTOR, me *windows.SID, owners Owners) error {
	owner, _, err := sd.Owner()
	if err != nil || owner == nil {
		return errors.New("has no owner that can be read")
	}
	if !windows.EqualSid(owner, me) && (owners != UserOrAdmins || !isTrusted(owner)) {
		return fmt.Errorf("is owned by %s, not by you (%s)", Name(owner), me)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("has an access list that cannot be read (%v)", err)
	}
	if dacl == nil {
		return errors.New("has no access list (a NULL DACL: everyone may open it)")
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("has an access list that cannot be read (%v)", err)
		}
		switch ace.Header.AceType {
		case windows.ACCESS_DENIED_ACE_TYPE, accessDeniedObject, accessDeniedCallback, accessDeniedCallbackObject:
			continue
		case windows.ACCESS_ALLOWED_ACE_TYPE:
		default:
			return fmt.Errorf("has an access entry of a kind this check does not read (type %d)", ace.Header.AceType)
		}
		if ace.Mask == 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if windows.EqualSid(sid, me) || isTrusted(sid) {
			continue
		}
		if ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 && sid.String() == creatorOwner {
			continue
		}
		if ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			return fmt.Errorf("lets %s into what is made in it", Name(sid))
		}
		return fmt.Errorf("is open to %s", Name(sid))
	}
	return nil
}

// The deny entries besides ACCESS_DENIED_ACE_TYPE (winnt.h).
const (
	accessDeniedObject         = 0x6
	accessDeniedCallback       = 0xA
	accessDeniedCallbackObject = 0xC
)

// isTrusted says whether sid is one of trusted.
func isTrusted(sid *windows.SID) bool {
	for _, s := range trusted {
		if w, err := windows.StringToSid(s); err == nil && windows.EqualSid(sid, w) {
			return true
		}
	}
	return false
}

// Name is sid as a string, with its account's name when it has one:
// "S-1-1-0 (Everyone)".
func Name(sid *windows.SID) string {
	if account, domain, _, err := sid.LookupAccount(""); err == nil && account != "" {
		if domain != "" {
			account = domain + `\` + account
		}
		return sid.String() + " (" + account + ")"
	}
	return sid.String()
}

// Private is a security descriptor that lets in the user (me) alone, and
// makes the user its owner: protected, so that nothing is inherited from
// the parent; with inherit, its one entry also passes to what is made in a
// folder. The system keeps no entry: it needs none.
func Private(me *windows.SID, inherit bool) (*windows.SecurityAttributes, error) {
	flags := ""
	if inherit {
		flags = "OICI"
	}
	sd, err := windows.SecurityDescriptorFromString("O:" + me.String() + "D:P(A;" + flags + ";FA;;;" + me.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("make a private access list: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// OfFile reads the owner and DACL of the file or folder at path.
func OfFile(path string) (*windows.SECURITY_DESCRIPTOR, error) {
	return windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
}

// OfHandle reads the owner and DACL of an open kernel object (a named
// pipe).
func OfHandle(h windows.Handle) (*windows.SECURITY_DESCRIPTOR, error) {
	return windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
}
