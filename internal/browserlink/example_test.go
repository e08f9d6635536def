package browserlink_test

import (
	"bytes"
	"fmt"

	"github.com/webmcp-bridge/bridge/internal/browserlink"
	"github.com/webmcp-bridge/bridge/nativemsg"
	"github.com/webmcp-bridge/bridge/protocol"
)

// The host's end of the link: what comes in a batch is handed out one
// message at a time, More saying that the rest of the batch follows; what
// the host sends together goes in one batch once the browser said it
// takes them.
func Example() {
	var in, out bytes.Buffer
	browser := nativemsg.NewWriter(&in, protocol.MaxBrowserFrame)
	browser.Write([]byte(`{"type":"hello","protocol":1,"browser":{"batch":true}}`))
	browser.Write([]byte(`{"type":"batch","messages":[{"type":"result","id":"s1.1","output":1},{"type":"result","id":"s2.1","output":2}]}`))

	l := browserlink.New(
		nativemsg.NewReader(&in, protocol.MaxBrowserFrame),
		nativemsg.NewWriter(&out, protocol.MaxHostFrame),
		browserlink.Options{})
	for {
		m, err := l.Receive()
		if err != nil {
			break
		}
		fmt.Printf("%s %s more=%v\n", m.Env.Type, m.Env.ID, m.More)
		if m.Env.Type == protocol.TypeHello {
			l.SetBatch(true)
		}
	}

	l.SendMany([][]byte{[]byte(`{"type":"call","id":"s1.2"}`), []byte(`{"type":"cancel","id":"s1.2"}`)})
	sent, _ := nativemsg.NewReader(&out, protocol.MaxHostFrame).Read()
	fmt.Printf("%s\n", sent)
	// Output:
	// hello  more=false
	// result s1.1 more=true
	// result s2.1 more=false
	// {"type":"batch","messages":[{"type":"call","id":"s1.2"},{"type":"cancel","id":"s1.2"}]}
}
