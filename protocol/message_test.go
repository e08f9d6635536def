package protocol_test

import (
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

func TestPeekEnvelope(t *testing.T) {
	env, err := protocol.PeekEnvelope([]byte(`{"id":"s1.7","output":{"big":[1,2,3]},"type":"result","unknown":true}`))
	if err != nil || env.Type != protocol.TypeResult || env.ID != "s1.7" {
		t.Errorf("PeekEnvelope = %+v, %v", env, err)
	}
	for _, tc := range []struct{ in, want string }{
		{``, "malformed"},
		{`{"type":"call"`, "malformed"},
		{`{"type":"call"} trailing`, "malformed"},
		{`[]`, "malformed"},
		{`"call"`, "malformed"},
		{`null`, `no "type"`},
		{`{}`, `no "type"`},
		{`{"type":""}`, `no "type"`},
		{`{"type":7}`, "malformed"},
		{`{"type":"call","id":17}`, "malformed"},
	} {
		_, err := protocol.PeekEnvelope([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PeekEnvelope(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestErrorf(t *testing.T) {
	e := protocol.Errorf(protocol.CodeNotFound, "no tool %q", "x")
	if e.Code != protocol.CodeNotFound || e.Message != `no tool "x"` || e.Error() != `not_found: no tool "x"` {
		t.Errorf("Errorf = %+v (%v)", e, e)
	}
}
