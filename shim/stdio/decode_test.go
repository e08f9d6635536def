package stdio

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeCases are lines an agent may send: requests of every shape, and
// what is not one (answers, and what the SDK refuses or reads its own way).
var decodeCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1.9,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-7,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"method":"ping","id":2,"jsonrpc":"2.0","extra":[1,{"a":"}"}]}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":4,"method":"","params":[]}`,
	` {"jsonrpc":"2.0","id":5,"method":"p\u00e9ng \"q\""} `,
	`{"jsonrpc":"2.0","id":6,"Method":"ping"}`,
	`{"jsonrpc":"2.0","ID":7,"method":"ping"}`,
	`{"JSONRPC":"2.0","id":8,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":9,"method":"ping"}`,
	`{"id":10,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":11,"method":5}`,
	`{"jsonrpc":"2.0","id":12,"method":null}`,
	`{"jsonrpc":"2.0","id":13,"method":"ping"} trailing`,
	`{"jsonrpc":"2.0","id":14,"result":{"ok":true}}`,
	`{"jsonrpc":"2.0","id":15,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`[1,2]`,
	`"text"`,
	`null`,
	`{"jsonrpc":"2.0","id":16,"method":"ping"`,
	`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"a":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}}`,
	`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`,
	`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"a":"` + strings.Repeat("[", 2000) + `"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"p\xffng\",\"params\":{\"t\":\"\xfe\"}}",
}

// decode gives what the SDK's own decoder gives, message for message and
// error for error.
func TestDecodeIsTheSDKs(t *testing.T) {
	for _, line := range decodeCases {
		want, werr := jsonrpc.DecodeMessage([]byte(line))
		got, gerr := decode([]byte(line))
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%.80s: error %v, the SDK's %v", line, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if g, w := describe(t, got), describe(t, want); g != w {
			t.Errorf("%.80s:\n got %s\nwant %s", line, g, w)
		}
	}
}

// describe is a message's Go type and wire form.
func describe(t *testing.T, m jsonrpc.Message) string {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	var params string
	if r, ok := m.(*jsonrpc.Request); ok {
		params = fmt.Sprintf(" params %q (nil %v)", r.Params, r.Params == nil)
	}
	return fmt.Sprintf("%T %s%s", m, b, params)
}

// BenchmarkDecode: a tools/call as an agent sends it, through the SDK's
// decoder and through decode.
func BenchmarkDecode(b *testing.B) {
	line := []byte(decodeCases[0])
	for _, c := range []struct {
		name string
		fn   func([]byte) (jsonrpc.Message, error)
	}{{"sdk", jsonrpc.DecodeMessage}, {"decode", decode}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.fn(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
