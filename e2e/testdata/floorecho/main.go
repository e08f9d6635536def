// Command floorecho is the floor path of the benchmarks (issue 23): the
// bridge's processes and hops with none of its logic, carrying an echo. It
// is built by the e2e tests only, never installed.
//
//	floorecho server SOCKET   an MCP stdio server whose tool "echo" sends
//	                          its arguments over the Unix socket SOCKET and
//	                          answers with what comes back; its tool
//	                          "direct" answers at once (stdio alone)
//	floorecho chrome-extension://ID/
//	                          the native messaging host, started by the
//	                          browser: it listens on $WEBMCP_FLOOR_SOCKET,
//	                          and passes each line that comes in to the
//	                          extension as a native message, and the answers
//	                          back; a line whose "to" is "host" it answers
//	                          itself (the socket echo)
//
// A message is {"id":N,"to":"host"|"worker"|"content"|"main","text":S}:
// "to" names the hop that turns it back; the extension's pieces echo it.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type message struct {
	ID   int64  `json:"id"`
	To   string `json:"to"`
	Text string `json:"text"`
	Err  string `json:"error,omitempty"`
}

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "server":
		err = server(os.Args[2])
	case len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "chrome-extension://"):
		err = host(os.Getenv("WEBMCP_FLOOR_SOCKET"))
	default:
		err = fmt.Errorf("usage: floorecho server SOCKET | floorecho chrome-extension://ID/ (started by the browser)")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorecho:", err)
		os.Exit(1)
	}
}

// server is the MCP server: tool calls go over one socket connection,
// many in flight, matched to their answers by id.
func server(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	var (
		mu      sync.Mutex
		waiting = map[int64]chan message{}
		next    atomic.Int64
	)
	go func() {
		sc := bufio.NewScanner(conn)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var m message
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			mu.Lock()
			c := waiting[m.ID]
			delete(waiting, m.ID)
			mu.Unlock()
			if c != nil {
				c <- m
			}
		}
		os.Exit(0) // the host went away
	}()
	var wmu sync.Mutex
	srv := mcp.NewServer(&mcp.Implementation{Name: "floorecho", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	srv.AddTool(&mcp.Tool{Name: "direct", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Text string }
		json.Unmarshal(req.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Text string }
		json.Unmarshal(req.Params.Arguments, &a)
		m := message{ID: next.Add(1), To: "main", Text: a.Text}
		c := make(chan message, 1)
		mu.Lock()
		waiting[m.ID] = c
		mu.Unlock()
		line, _ := json.Marshal(m)
		wmu.Lock()
		_, err := conn.Write(append(line, '\n'))
		wmu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case got := <-c:
			if got.Err != "" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: got.Err}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: got.Text}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	return srv.Run(context.Background(), &mcp.StdioTransport{})
}

// host is the native messaging host: socket lines to native messages and
// back, ids rewritten so that several connections can share the browser.
func host(socket string) error {
	if socket == "" {
		return fmt.Errorf("WEBMCP_FLOOR_SOCKET is not set")
	}
	os.Remove(socket)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	type route struct {
		w  *lockedWriter
		id int64
	}
	var (
		mu     sync.Mutex
		routes = map[int64]route{}
		next   int64
		outMu  sync.Mutex
		out    = bufio.NewWriter(os.Stdout)
	)
	toBrowser := func(m message) error {
		body, _ := json.Marshal(m)
		outMu.Lock()
		defer outMu.Unlock()
		var n [4]byte
		binary.NativeEndian.PutUint32(n[:], uint32(len(body)))
		out.Write(n[:])
		out.Write(body)
		return out.Flush()
	}
	// Answers from the browser.
	go func() {
		in := bufio.NewReader(os.Stdin)
		var n [4]byte
		for {
			if _, err := io.ReadFull(in, n[:]); err != nil {
				os.Exit(0) // the browser closed the port
			}
			body := make([]byte, binary.NativeEndian.Uint32(n[:]))
			if _, err := io.ReadFull(in, body); err != nil {
				os.Exit(0)
			}
			var m message
			if json.Unmarshal(body, &m) != nil {
				continue
			}
			mu.Lock()
			r, ok := routes[m.ID]
			delete(routes, m.ID)
			mu.Unlock()
			if ok {
				m.ID = r.id
				r.w.send(m)
			}
		}
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			w := &lockedWriter{w: c}
			sc := bufio.NewScanner(c)
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				var m message
				if json.Unmarshal(sc.Bytes(), &m) != nil {
					continue
				}
				if m.To == "host" {
					w.send(m)
					continue
				}
				mu.Lock()
				next++
				id := next
				routes[id] = route{w, m.ID}
				mu.Unlock()
				m.ID = id
				if toBrowser(m) != nil {
					os.Exit(0)
				}
			}
		}()
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) send(m message) {
	line, _ := json.Marshal(m)
	l.mu.Lock()
	l.w.Write(append(line, '\n'))
	l.mu.Unlock()
}
