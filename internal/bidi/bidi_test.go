package bidi_test

// The client against a WebSocket server written here (Firefox, the real
// remote end, is in the e2e tests, which skip where it is not installed):
// the handshake, masked client frames, a long answer in two fragments, a
// ping, an event, an error answer, and the end of the connection.

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/webmcp-bridge/bridge/internal/bidi"
)

// frame encodes one unmasked server frame.
func frame(fin bool, op byte, p []byte) []byte {
	b := op
	if fin {
		b |= 0x80
	}
	h := []byte{b}
	switch n := len(p); {
	case n < 126:
		h = append(h, byte(n))
	case n <= 0xffff:
		h = append(h, 126, byte(n>>8), byte(n))
	default:
		h = append(h, 127)
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	}
	return append(h, p...)
}

// readClientFrame reads one frame of the client, which must be masked.
func readClientFrame(t *testing.T, r *bufio.Reader) (byte, []byte) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Errorf("read a frame: %v", err)
		return 0, nil
	}
	if h[1]&0x80 == 0 {
		t.Error("a client frame is not masked")
	}
	n := int(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r, b[:])
		n = int(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r, b[:])
		n = int(binary.BigEndian.Uint64(b[:]))
	}
	var mask [4]byte
	io.ReadFull(r, mask[:])
	p := make([]byte, n)
	io.ReadFull(r, p)
	for i := range p {
		p[i] ^= mask[i%4]
	}
	return h[0] & 0x0f, p
}

func TestClient(t *testing.T) {
	long := strings.Repeat("x", 70000)
	pong := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
		rw.Flush()
		for {
			op, p := readClientFrame(t, rw.Reader)
			switch op {
			case 0xA:
				pong <- string(p)
				continue
			case 0x8:
				return
			}
			var cmd struct {
				ID     int    `json:"id"`
				Method string `json:"method"`
			}
			json.Unmarshal(p, &cmd)
			switch cmd.Method {
			case "long":
				// A ping and an event first, then the answer in two
				// fragments.
				rw.Write(frame(true, 0x9, []byte("hi")))
				rw.Write(frame(true, 0x1, []byte(`{"type":"event","method":"log.entryAdded","params":{"text":"e"}}`)))
				msg, _ := json.Marshal(map[string]any{"type": "success", "id": cmd.ID, "result": map[string]string{"v": long}})
				rw.Write(frame(false, 0x1, msg[:100]))
				rw.Write(frame(true, 0x0, msg[100:]))
			case "bad":
				rw.Write(frame(true, 0x1, []byte(`{"type":"error","id":`+jsonInt(cmd.ID)+`,"error":"invalid argument","message":"no"}`)))
			case "bye":
				rw.Write(frame(true, 0x8, nil))
				rw.Flush()
				return
			}
			rw.Flush()
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := bidi.Dial(ctx, "ws://"+strings.TrimPrefix(srv.URL, "http://")+"/session")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Command(ctx, "long", map[string]any{"pad": strings.Repeat("y", 300)})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ V string }
	if json.Unmarshal(raw, &res); res.V != long {
		t.Errorf("the long answer came back with %d bytes, want %d", len(res.V), len(long))
	}
	select {
	case ev := <-c.Events:
		if ev.Method != "log.entryAdded" || string(ev.Params) != `{"text":"e"}` {
			t.Errorf("event = %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
	select {
	case p := <-pong:
		if p != "hi" {
			t.Errorf("pong %q, want the ping's payload", p)
		}
	case <-ctx.Done():
		t.Fatal("no pong")
	}
	if _, err := c.Command(ctx, "bad", nil); err == nil || !strings.Contains(err.Error(), "invalid argument: no") {
		t.Errorf("an error answer gave %v", err)
	}
	if _, err := c.Command(ctx, "bye", nil); err == nil || !strings.Contains(err.Error(), "closed the connection") {
		t.Errorf("a command the remote end closed on gave %v", err)
	}
	if _, err := c.Command(ctx, "after", nil); err == nil {
		t.Error("a command after the end succeeded")
	}
	c.Close()
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }
