// Package bidi is a small WebDriver BiDi client: the commands the Firefox
// end-to-end tests need, over one WebSocket to Firefox's remote agent
// (firefox --remote-debugging-port PORT, ws://127.0.0.1:PORT/session).
//
// No maintained Go library fits (chromedp speaks CDP, which Firefox has
// dropped; the BiDi clients are Selenium's and Puppeteer's, not Go), and the
// module takes no new dependency for a test: so the WebSocket is the client
// side of RFC 6455 written here, text messages only, which is all BiDi uses.
//
// Test-only: the bridge's tests import it, no binary does.
package bidi

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

var timeZero time.Time

// Client is a BiDi connection. Its methods are safe for concurrent use.
type Client struct {
	conn net.Conn
	wmu  sync.Mutex // one frame at a time

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan response
	err     error // why the connection ended
	done    chan struct{}

	// Events receives the events the session subscribed to; they are
	// dropped when nobody reads them.
	Events chan Event
}

// Event is a BiDi event: its method and its params.
type Event struct {
	Method string
	Params json.RawMessage
}

type response struct {
	result json.RawMessage
	err    error
}

// Dial opens a WebSocket to wsURL (ws://HOST:PORT/session).
func Dial(ctx context.Context, wsURL string) (*Client, error) {
	u, err := url.Parse(wsURL)
	if err != nil || u.Scheme != "ws" {
		return nil, fmt.Errorf("bidi: %q is not a ws:// URL", wsURL)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("bidi: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	keyBytes := make([]byte, 16)
	rand.Read(keyBytes)
	key := base64.StdEncoding.EncodeToString(keyBytes)
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		conn.Close()
		return nil, fmt.Errorf("bidi: %w", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("bidi: the WebSocket handshake: %w", err)
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("bidi: the WebSocket handshake failed: %s", resp.Status)
	}
	conn.SetDeadline(timeZero)
	c := &Client{conn: conn, waiting: map[int]chan response{}, done: make(chan struct{}), Events: make(chan Event, 64)}
	go c.readLoop(br)
	return c, nil
}

// Command sends method with params and returns its result, or the error
// the remote end answered.
func (c *Client) Command(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = struct{}{}
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := c.nextID
	ch := make(chan response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	msg, err := json.Marshal(struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params})
	if err != nil {
		return nil, err
	}
	if err := c.write(0x1, msg); err != nil {
		return nil, fmt.Errorf("bidi %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("bidi %s: %w", method, r.err)
		}
		return r.result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("bidi %s: %w", method, ctx.Err())
	}
}

// Close closes the connection.
func (c *Client) Close() error {
	c.write(0x8, nil)
	err := c.conn.Close()
	<-c.done
	return err
}

// write sends one frame, masked as a client must.
func (c *Client) write(op byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	hdr := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	rand.Read(mask[:])
	hdr = append(hdr, mask[:]...)
	masked := make([]byte, len(payload))
	for i, b := range payload {
		masked[i] = b ^ mask[i%4]
	}
	_, err := c.conn.Write(append(hdr, masked...))
	return err
}

// readLoop reads messages until the connection ends, and hands each to
// the command that waits for it, or to Events.
func (c *Client) readLoop(r *bufio.Reader) {
	defer close(c.done)
	var msg []byte
	for {
		fin, op, payload, err := readFrame(r)
		if err != nil {
			c.fail(fmt.Errorf("bidi: the connection ended: %w", err))
			return
		}
		switch op {
		case 0x8: // close
			c.fail(errors.New("bidi: the remote end closed the connection"))
			return
		case 0x9: // ping
			c.write(0xA, payload)
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, payload...)
		if !fin {
			continue
		}
		c.dispatch(msg)
		msg = nil
	}
}

func (c *Client) dispatch(msg []byte) {
	var m struct {
		Type    string          `json:"type"`
		ID      *int            `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   string          `json:"error"`
		Message string          `json:"message"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	if m.Type == "event" {
		select {
		case c.Events <- Event{m.Method, m.Params}:
		default:
		}
		return
	}
	if m.ID == nil {
		return
	}
	c.mu.Lock()
	ch := c.waiting[*m.ID]
	delete(c.waiting, *m.ID)
	c.mu.Unlock()
	if ch == nil {
		return
	}
	if m.Type == "error" {
		ch <- response{err: fmt.Errorf("%s: %s", m.Error, m.Message)}
		return
	}
	ch <- response{result: m.Result}
}

// fail ends every command under way with err.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.waiting {
		ch <- response{err: err}
		delete(c.waiting, id)
	}
}

// readFrame reads one frame (the server's are not masked).
func readFrame(r *bufio.Reader) (fin bool, op byte, payload []byte, err error) {
	var h [2]byte
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0f
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(r, b[:]); err != nil {
			return
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(r, b[:]); err != nil {
			return
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	var mask []byte
	if h[1]&0x80 != 0 {
		mask = make([]byte, 4)
		if _, err = io.ReadFull(r, mask); err != nil {
			return
		}
	}
	if n > 64<<20 {
		err = fmt.Errorf("a frame of %d bytes", n)
		return
	}
	payload = make([]byte, n)
	if _, err = io.ReadFull(r, payload); err != nil {
		return
	}
	if mask != nil {
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return
}
