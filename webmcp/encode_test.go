package webmcp_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/webmcp"
)

func TestMarshalNeutralValues(t *testing.T) {
	for _, tc := range []struct {
		m    webmcp.Message
		want string
	}{
		{webmcp.Message{Type: webmcp.TypeCall, ID: "s1.1", TabID: 3, Name: "echo"},
			`{"type":"call","id":"s1.1","tabId":3,"frameId":0,"name":"echo","arguments":{}}`},
		{webmcp.Message{Type: webmcp.TypeRequest, ID: "s1.2", Method: webmcp.MethodUnpin},
			`{"type":"request","id":"s1.2","method":"unpin","params":{}}`},
		{webmcp.Message{Type: webmcp.TypeResult, ID: "s1.3"}, `{"type":"result","id":"s1.3","output":null}`},
		{webmcp.Message{Type: webmcp.TypePins}, `{"type":"pins","pins":[]}`},
		{webmcp.Message{Type: webmcp.TypeToolsAdded}, `{"type":"toolsAdded","tools":[]}`},
		{webmcp.Message{Type: webmcp.TypeToolsRemoved}, `{"type":"toolsRemoved","removed":[]}`},
		{webmcp.Message{Type: webmcp.TypeTabRemoved}, `{"type":"tabRemoved","tabId":0}`},
		{webmcp.Message{Type: webmcp.TypeState}, `{"type":"state","state":{"tabs":[],"tools":[]}}`},
		{webmcp.Message{Type: webmcp.TypeChunk, ID: "c1"}, `{"type":"chunk","id":"c1","seq":0,"last":false,"data":""}`},
		{webmcp.Message{Type: webmcp.TypeSessions}, `{"type":"sessions","sessions":[]}`},
		{webmcp.Message{Type: webmcp.TypeBatch}, `{"type":"batch","messages":[]}`},
		{webmcp.Message{Type: webmcp.TypeError, Error: webmcp.Errorf(webmcp.CodeBadRequest, "no id")},
			`{"type":"error","error":{"code":"bad_request","message":"no id"}}`},
		// Fields of other types are left out.
		{webmcp.Message{Type: webmcp.TypeCancel, ID: "s1.4", TabID: 9, Output: json.RawMessage(`1`)}, `{"type":"cancel","id":"s1.4"}`},
		// A type this package does not know: every field that is set.
		{webmcp.Message{Type: "telepathy", ID: "x", TabID: 2}, `{"type":"telepathy","id":"x","tabId":2}`},
	} {
		got, err := json.Marshal(tc.m)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.m, got, err, tc.want)
		}
	}
}

func TestMarshalEscapesHTMLAsTheCallerSays(t *testing.T) {
	m := &webmcp.Message{Type: webmcp.TypeResult, ID: "s1.1", Output: json.RawMessage(`{"html":"<b>&</b>"}`)}
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
	m := &webmcp.Message{Type: webmcp.TypeCall, ID: "s1.1", TabID: 7, Name: "echo", Arguments: args}
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
	}{webmcp.TypeCall, "s1.1", 7, 0, "echo", args}
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
