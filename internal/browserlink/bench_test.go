package browserlink_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// BenchmarkLinkBatch sends 16 calls as one batch and receives the batch
// of their 16 answers, as the host does under load.
func BenchmarkLinkBatch(b *testing.B) {
	var calls, answers [][]byte
	for i := range 16 {
		calls = append(calls, []byte(fmt.Sprintf(`{"type":"call","id":"s3.%d","tabId":1837261,"frameId":0,"name":"sum_numbers","arguments":{"a":20,"b":22},"timeout":300000,"agent":"a1"}`, 1700+i)))
		answers = append(answers, []byte(fmt.Sprintf(`{"type":"result","id":"s3.%d","output":{"content":[{"type":"text","text":"the sum is 42"}],"structuredContent":{"sum":42}}}`, 1700+i)))
	}
	var in bytes.Buffer
	nativemsg.NewWriter(&in, protocol.MaxBrowserFrame).Write(protocol.AppendBatch(nil, answers))
	frame := in.Bytes()
	r := bytes.NewReader(frame)
	l := browserlink.New(nativemsg.NewReader(r, protocol.MaxBrowserFrame), nativemsg.NewWriter(io.Discard, protocol.MaxHostFrame), browserlink.Options{})
	l.SetBatch(true)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := l.SendMany(calls); n != 16 || err != nil {
			b.Fatal(n, err)
		}
		r.Reset(frame)
		for {
			m, err := l.Receive()
			if err != nil {
				b.Fatal(err)
			}
			if !m.More {
				break
			}
		}
	}
}
