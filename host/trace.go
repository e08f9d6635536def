package host

import (
	"bytes"
	"encoding/json"

	"github.com/webmcp-bridge/bridge/protocol"
)

var traceKey = []byte(`"trace":[`)

// traced adds the mark of hop to a traced call or answer (one with a
// "trace" list, see [protocol.Mark]); every other message, nearly all of
// them, passes as it is, without being decoded.
func traced(msg []byte, hop string) []byte {
	if !bytes.Contains(msg, traceKey) {
		return msg
	}
	var m protocol.Message
	if err := json.Unmarshal(msg, &m); err != nil || m.Trace == nil {
		return msg // the text was in a field, not the list
	}
	m.Trace = append(m.Trace, protocol.MarkNow(hop))
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}
