package protocol_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/protocol"
)

func TestMarshalNeutralValues(t *testing.T) {
	for _, tc := range []struct {
		m    protocol.Message
		want string
	}{
		{protocol.Message{Type: protocol.TypeCall, ID: "s1.1", TabID: 3, Name: "echo"},
			`{"type":"call","id":"s1.1","tabId":3,"frameId":0,"name":"echo","arguments":{}}`},
		{protocol.Message{Type: protocol.TypeRequest, ID: "s1.2", Method: protocol.MethodUnpin},
			`{"type":"request","id":"s1.2","method":"unpin","params":{}}`},
		{protocol.Message{Type: protocol.TypeResult, ID: "s1.3"}, `{"type":"result","id":"s1.3","output":null}`},
		{protocol.Message{Type: protocol.TypePins}, `{"type":"pins","pins":[]}`},
		{protocol.Message{Type: protocol.TypeToolsAdded}, `{"type":"toolsAdded","tools":[]}`},
		{protocol.Message{Type: protocol.TypeToolsRemoved}, `{"type":"toolsRemoved","removed":[]}`},
		{protocol.Message{Type: protocol.TypeTabRemoved}, `{"type":"tabRemoved","tabId":0}`},
		{protocol.Message{Type: protocol.TypeState}, `{"type":"state","state":{"tabs":[],"tools":[]}}`},
		{protocol.Message{Type: protocol.TypeChunk, ID: "c1"}, `{"type":"chunk","id":"c1","seq":0,"last":false,"data":""}`},
		{protocol.Message{Type: protocol.TypeSessions}, `{"type":"sessions","sessions":[]}`},
		{protocol.Message{Type: protocol.TypeBatch}, `{"type":"batch","messages":[]}`},
		{protocol.Message{Type: protocol.TypeError, Error: protocol.Errorf(protocol.CodeBadRequest, "no id")},
			`{"type":"error","error":{"code":"bad_request","message":"no id"}}`},
		// Fields of other types are left out.
		{protocol.Message{Type: protocol.TypeCancel, ID: "s1.4", TabID: 9, Output: json.RawMessage(`1`)}, `{"type":"cancel","id":"s1.4"}`},
		// A type this package does not know: every field that is set.
		{protocol.Message{Type: "telepathy", ID: "x", TabID: 2}, `{"type":"telepathy","id":"x","tabId":2}`},
	} {
		got, err := json.Marshal(tc.m)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.m, got, err, tc.want)
		}
	}
}

func TestMarshalEscapesHTMLAsTheCallerSays(t *testing.T) {
	m := &protocol.Message{Type: protocol.TypeResult, ID: "s1.1", Output: json.RawMessage(`{"html":"<b>&</b>"}`)}
	got, err := json.Marshal(m)
	if err != nil || !strings.Contains(string(got), `\u003cb\u003e\u0026`) {
		t.Errorf("json.Marshal = %s, %v; want <, > and & escaped", got, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil || !strings.Contains(buf.String(), `"<b>&</b>"`) {
		t.Errorf("an encoder without HTML escaping wrote %s, %v", buf.String(), err)
	}
}

// BenchmarkMarshalCall measures what a shim pays to encode a call with
// 16 KiB of arguments (the host never encodes calls: it passes their bytes
// on); compare BenchmarkMarshalCallStruct, the same call as a plain struct.
func BenchmarkMarshalCall(b *testing.B) {
	args := json.RawMessage(`{"q":"` + strings.Repeat("x", 16<<10) + `"}`)
	m := &protocol.Message{Type: protocol.TypeCall, ID: "s1.1", TabID: 7, Name: "echo", Arguments: args}
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalCallStruct is BenchmarkMarshalCall without MarshalJSON.
func BenchmarkMarshalCallStruct(b *testing.B) {
	args := json.RawMessage(`{"q":"` + strings.Repeat("x", 16<<10) + `"}`)
	m := struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		TabID     int             `json:"tabId"`
		FrameID   int             `json:"frameId"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{protocol.TypeCall, "s1.1", 7, 0, "echo", args}
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

func TestObjectOrEmpty(t *testing.T) {
	for in, want := range map[string]string{
		"":             "{}",
		"  \n":         "{}",
		"null":         "{}",
		" null ":       "{}",
		`{"a":1}`:      `{"a":1}`,
		" {\"a\":1}\n": `{"a":1}`,
		"[]":           "[]", // not an object: the receiver refuses it, with its own words
		`"nullish"`:    `"nullish"`,
	} {
		if got := string(protocol.ObjectOrEmpty(json.RawMessage(in))); got != want {
			t.Errorf("ObjectOrEmpty(%q) = %q, want %q", in, got, want)
		}
	}
	// Without arguments a call still carries {}: the one default, on the wire.
	b, err := json.Marshal(protocol.Message{Type: protocol.TypeCall, ID: "s1.1", Name: "echo", Arguments: json.RawMessage(" null ")})
	if err != nil || !strings.Contains(string(b), `"arguments":{}`) {
		t.Errorf("a call with null arguments encodes as %s (%v), want \"arguments\":{}", b, err)
	}
}
