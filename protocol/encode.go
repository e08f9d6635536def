package protocol

import (
	"bytes"
	"encoding/json"
)

// The wire shapes of the messages, one per type: what [Message.MarshalJSON]
// writes, field by field and in this order. A field without omitempty is
// always written, also when it is zero: "frameId":0 is the top frame, not
// "unset", and "pins":[] clears the list. The golden messages in
// testdata/protocol pin these shapes for Go and JavaScript alike.
type (
	helloWire struct {
		Type     string      `json:"type"`
		Protocol int         `json:"protocol"`
		Session  string      `json:"session,omitempty"` // host -> shim
		Host     *HostInfo   `json:"host,omitempty"`    // host -> shim, host -> extension
		Client   *ClientInfo `json:"client,omitempty"`  // shim -> host
		Browser  *Browser    `json:"browser,omitempty"` // extension -> host, host -> shim
	}
	stateWire struct {
		Type  string    `json:"type"`
		State *Snapshot `json:"state"`
	}
	tabUpdatedWire struct {
		Type string `json:"type"`
		Tab  *Tab   `json:"tab"`
	}
	tabRemovedWire struct {
		Type  string `json:"type"`
		TabID int    `json:"tabId"`
	}
	toolsAddedWire struct {
		Type  string `json:"type"`
		Tools []Tool `json:"tools"`
	}
	toolsRemovedWire struct {
		Type    string    `json:"type"`
		Removed []ToolRef `json:"removed"`
	}
	contextWire struct {
		Type    string   `json:"type"`
		Context *Context `json:"context"`
	}
	pinsWire struct {
		Type string `json:"type"`
		Pins []Pin  `json:"pins"`
	}
	callWire struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		TabID     int             `json:"tabId"`
		FrameID   int             `json:"frameId"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Agent     string          `json:"agent,omitempty"`
		Timeout   int             `json:"timeout,omitempty"`
		Trace     []Mark          `json:"trace,omitempty"`
	}
	clientWire struct {
		Type   string      `json:"type"`
		Client *ClientInfo `json:"client"`
	}
	sessionsWire struct {
		Type     string    `json:"type"`
		Sessions []Session `json:"sessions"`
	}
	cancelWire struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	requestWire struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Agent  string          `json:"agent,omitempty"`
	}
	resultWire struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Output json.RawMessage `json:"output"`
		Trace  []Mark          `json:"trace,omitempty"`
	}
	errorWire struct {
		Type string `json:"type"`
		// ID is left out only in an error about a message that had none.
		ID    string `json:"id,omitempty"`
		Error *Error `json:"error"`
		Trace []Mark `json:"trace,omitempty"`
	}
	chunkWire struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Seq  int    `json:"seq"`
		Last bool   `json:"last"`
		Data string `json:"data"`
	}
	batchWire struct {
		Type     string            `json:"type"`
		Messages []json.RawMessage `json:"messages"`
	}
	// anyWire is Message without its MarshalJSON: the encoding of a type
	// this package does not know.
	anyWire Message
)

var (
	emptyObject = json.RawMessage("{}")
	jsonNull    = json.RawMessage("null")
)

// MarshalJSON encodes m with the fields of its type only, in the order of
// the package documentation. Required fields are written even when they are
// zero; absent ones get their neutral value: "arguments" and "params" {},
// "output" null, "tools", "removed" and "pins" [], and a state's "tabs" and
// "tools" []. A message of an unknown type is encoded with every field that
// is set.
//
// Routers never need this: they pass the bytes they received on as they
// are (see [PeekEnvelope]).
func (m Message) MarshalJSON() ([]byte, error) {
	var v any
	switch m.Type {
	case TypeHello:
		v = helloWire{m.Type, m.Protocol, m.Session, m.Host, m.Client, m.Browser}
	case TypeState:
		s := Snapshot{}
		if m.State != nil {
			s = *m.State
		}
		if s.Tabs == nil {
			s.Tabs = []Tab{}
		}
		if s.Tools == nil {
			s.Tools = []Tool{}
		}
		v = stateWire{m.Type, &s}
	case TypeTabUpdated:
		v = tabUpdatedWire{m.Type, m.Tab}
	case TypeTabRemoved:
		v = tabRemovedWire{m.Type, m.TabID}
	case TypeToolsAdded:
		v = toolsAddedWire{m.Type, emptyIfNil(m.Tools)}
	case TypeToolsRemoved:
		v = toolsRemovedWire{m.Type, emptyIfNil(m.Removed)}
	case TypeContext:
		v = contextWire{m.Type, m.Context}
	case TypePins:
		v = pinsWire{m.Type, emptyIfNil(m.Pins)}
	case TypeCall:
		v = callWire{m.Type, m.ID, m.TabID, m.FrameID, m.Name, ObjectOrEmpty(m.Arguments), m.Agent, m.Timeout, m.Trace}
	case TypeCancel:
		v = cancelWire{m.Type, m.ID}
	case TypeRequest:
		v = requestWire{m.Type, m.ID, m.Method, ObjectOrEmpty(m.Params), m.Agent}
	case TypeResult:
		v = resultWire{m.Type, m.ID, orRaw(m.Output, jsonNull), m.Trace}
	case TypeError:
		e := m.Error
		if e == nil {
			e = &Error{Code: CodeInternal}
		}
		v = errorWire{m.Type, m.ID, e, m.Trace}
	case TypeChunk:
		v = chunkWire{m.Type, m.ID, m.Seq, m.Last, m.Data}
	case TypeClient:
		v = clientWire{m.Type, m.Client}
	case TypeSessions:
		v = sessionsWire{m.Type, emptyIfNil(m.Sessions)}
	case TypeBatch:
		v = batchWire{m.Type, emptyIfNil(m.Messages)}
	default:
		v = anyWire(m)
	}
	// Without HTML escaping: the caller's encoder escapes (or, with
	// SetEscapeHTML(false), keeps) "<", ">" and "&" when it copies this
	// text, as it does for any Marshaler.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// emptyIfNil returns s, or an empty slice for nil, so that it encodes as [].
func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// orRaw returns raw, or def when raw is empty.
// ObjectOrEmpty returns raw without the white space around it, or {} when
// it holds no value (empty, white space, or null): a call's arguments and a
// request's params as they go on the wire. It is the one place where "no
// arguments" becomes {}.
func ObjectOrEmpty(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObject
	}
	return raw
}

func orRaw(raw, def json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return def
	}
	return raw
}
