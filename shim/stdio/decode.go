package stdio

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxDepth is the deepest nesting the SDK decodes (its internal/json).
const maxDepth = 1000

// smallMessage is the longest line that decode reads itself: the SDK's
// decoder is as quick for longer ones, whose size its buffers fit.
const smallMessage = 64 << 10

// decode is jsonrpc.DecodeMessage without, for a well-formed request of up
// to smallMessage bytes, its decoder's two 32 KiB buffers: with the
// garbage collection they bring, they were a tenth of the shim's CPU time
// under load (BenchmarkDecode). A request decodes to what the SDK makes of
// it (keys match exactly, as the SDK's decoder matches them; the last of a
// repeated key wins); anything else, answers and whatever the SDK refuses,
// goes to the SDK's own decoder, for its result and its error.
func decode(data []byte) (jsonrpc.Message, error) {
	if len(data) <= smallMessage {
		if req := decodeRequest(data); req != nil {
			return req, nil
		}
	}
	return jsonrpc.DecodeMessage(data)
}

// decodeRequest decodes a well-formed JSON-RPC 2.0 request, or returns nil.
func decodeRequest(data []byte) *jsonrpc.Request {
	if !depthWithin(data, maxDepth) {
		return nil
	}
	var w map[string]json.RawMessage
	if json.Unmarshal(data, &w) != nil || w == nil {
		return nil
	}
	rawMethod, ok := w["method"]
	if !ok {
		return nil
	}
	var tag, method string
	var rawID any
	if json.Unmarshal(w["jsonrpc"], &tag) != nil || tag != "2.0" || json.Unmarshal(rawMethod, &method) != nil {
		return nil
	}
	if raw, ok := w["id"]; ok && json.Unmarshal(raw, &rawID) != nil {
		return nil
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil
	}
	return &jsonrpc.Request{Method: method, ID: id, Params: w["params"]}
}

// depthWithin says whether data nests no deeper than max, counting
// brackets outside strings as the SDK does.
func depthWithin(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return true
}
