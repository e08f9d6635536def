package winacl

import (
	"encoding/binary"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// TestCheck: what lets only the user in passes; every way of letting
// someone else in is named.
func TestCheck(t *testing.T) {
	me, err := UserSID()
	if err != nil {
		t.Fatal(err)
	}
	u := me.String()
	other := "S-1-5-21-1-2-3-1001"
	for _, c := range []struct {
		sddl   string
		owners Owners
		want   string // in the error; "" for none
	}{
		{"O:" + u + "D:P(A;;FA;;;" + u + ")", UserOnly, ""},
		{"O:" + u + "D:P(A;OICI;FA;;;" + u + ")(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)", UserOnly, ""},
		{"O:" + u + "D:P(A;;FA;;;" + u + ")(D;;FA;;;WD)", UserOnly, ""},
		{"O:" + u + "D:P(A;OICIIO;FA;;;CO)(A;;FA;;;" + u + ")", UserOnly, ""},
		// A folder made by the user's elevated process.
		{"O:BAD:P(A;OICI;FA;;;" + u + ")(A;OICI;FA;;;SY)", UserOrAdmins, ""},
		{"O:BAD:P(A;;FA;;;" + u + ")", UserOnly, "is owned by S-1-5-32-544"},
		{"O:" + other + "D:P(A;;FA;;;" + u + ")", UserOrAdmins, "is owned by " + other + ", not by you (" + u + ")"},
		{"O:" + u + "D:P(A;;FA;;;" + u + ")(A;;0x1200a9;;;WD)", UserOnly, "is open to S-1-1-0"},
		{"O:" + u + "D:(A;;FA;;;" + u + ")(A;;FR;;;AU)", UserOnly, "is open to S-1-5-11"},
		{"O:" + u + "D:P(A;;FA;;;" + u + ")(A;OICIIO;FA;;;BU)", UserOnly, "lets S-1-5-32-545"},
		{"O:" + u + "D:P(A;;FA;;;" + u + ")(A;;FA;;;" + other + ")", UserOrAdmins, "is open to " + other},
	} {
		sd, err := windows.SecurityDescriptorFromString(c.sddl)
		if err != nil {
			t.Fatalf("%s: %v", c.sddl, err)
		}
		err = Check(sd, me, c.owners)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%s) = %v, want nil", c.sddl, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%s) = %v, want an error saying %q", c.sddl, err, c.want)
		}
	}
}

// TestCheckNullDACLAndObjectEntries: a NULL DACL (everyone may open) and
// an allowing entry of a kind Check does not read are refused. Both are
// built by hand: Wine's SDDL parser makes an empty DACL of
// NO_ACCESS_CONTROL and reads no object entries.
func TestCheckNullDACLAndObjectEntries(t *testing.T) {
	me, err := UserSID()
	if err != nil {
		t.Fatal(err)
	}
	null, err := windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := null.SetOwner(me, false); err != nil {
		t.Fatal(err)
	}
	if err := null.SetDACL(nil, true, false); err != nil {
		t.Fatal(err)
	}
	if err := Check(null, me, UserOrAdmins); err == nil || !strings.Contains(err.Error(), "NULL DACL") {
		t.Errorf("Check(NULL DACL) = %v, want an error saying NULL DACL", err)
	}

	// An ACL with one ACCESS_ALLOWED_OBJECT_ACE (type 5) for Everyone.
	everyone, _ := windows.StringToSid("S-1-1-0")
	sid := unsafe.Slice((*byte)(unsafe.Pointer(everyone)), windows.GetLengthSid(everyone))
	ace := binary.LittleEndian.AppendUint16([]byte{5, 0}, uint16(12+len(sid)))
	ace = binary.LittleEndian.AppendUint32(ace, windows.GENERIC_READ)
	ace = binary.LittleEndian.AppendUint32(ace, 0) // no object types
	ace = append(ace, sid...)
	buf := make([]byte, 8+len(ace)+8) // room to keep it aligned
	acl := buf[:8]
	acl[0] = 4 // ACL_REVISION_DS
	binary.LittleEndian.PutUint16(acl[2:], uint16(8+len(ace)))
	binary.LittleEndian.PutUint16(acl[4:], 1)
	copy(buf[8:], ace)
	obj, _ := windows.NewSecurityDescriptor()
	obj.SetOwner(me, false)
	if err := obj.SetDACL((*windows.ACL)(unsafe.Pointer(&buf[0])), true, false); err != nil {
		t.Fatal(err)
	}
	if err := Check(obj, me, UserOnly); err == nil || !strings.Contains(err.Error(), "of a kind this check does not read (type 5)") {
		t.Errorf("Check(an object entry for Everyone) = %v, want it refused as a kind not read", err)
	}
}
