package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/webmcp-bridge/bridge/internal/fakeext"
	"github.com/webmcp-bridge/bridge/protocol"
)

// batchBrowser is a browser whose hello says it takes batches.
func batchBrowser() *protocol.Browser {
	return &protocol.Browser{Name: "Chromium", Version: "156.0.0.0", Instance: "fakeext", ExtensionID: protocol.ExtensionID, Batch: true}
}

// Calls that a shim wrote at once reach a browser that takes batches in
// one frame, and each is answered.
func TestCallsWrittenTogetherGoInOneBatch(t *testing.T) {
	for _, batch := range []bool{true, false} {
		t.Run(fmt.Sprintf("browser batch %v", batch), func(t *testing.T) {
			ctx := testCtx(t)
			opts := fakeext.Options{}
			if batch {
				opts.Browser = batchBrowser()
			}
			ext, _ := start(t, newBrowser(), opts)
			h, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeHello })
			if err != nil || h.Host == nil || !h.Host.Batch {
				t.Errorf("the host's hello to the browser %+v (%v) does not say it takes batches", h, err)
			}
			s := dialReady(ctx, t, ext.Socket())
			before := ext.Stats()
			var lines strings.Builder
			var ids []string
			for i := range 3 {
				id := fmt.Sprintf("%s.%d", s.session, i+1)
				ids = append(ids, id)
				b, _ := json.Marshal(&protocol.Message{Type: protocol.TypeCall, ID: id, TabID: 1, Name: "echo", Arguments: json.RawMessage(`{"n":1}`)})
				lines.Write(append(b, '\n'))
			}
			if _, err := io.WriteString(s.Conn(), lines.String()); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for len(got) < len(ids) {
				r := s.Expect(ctx, protocol.TypeResult)
				got[r.ID] = true
			}
			st := ext.Stats()
			// (Other frames may come meanwhile: the sessions list.)
			frames, batches := st.Frames-before.Frames, st.Batches-before.Batches
			if batch && batches != 1 {
				t.Errorf("3 calls written at once came in %d frames, %d batches, want 1 batch", frames, batches)
			}
			if !batch && (frames < 3 || batches != 0) {
				t.Errorf("to a browser without batches, 3 calls came in %d frames, %d batches, want 3 frames", frames, batches)
			}
		})
	}
}

// A batch of answers from the browser reaches the shims as if each had
// come alone; a batch inside a batch is refused.
func TestBrowserBatchOfAnswers(t *testing.T) {
	ctx := testCtx(t)
	ext, log := start(t, newBrowser(), fakeext.Options{Browser: batchBrowser()})
	s := dialReady(ctx, t, ext.Socket())
	ids := requestsUnderWay(ctx, t, ext, s, 2)
	r0, _ := json.Marshal(&protocol.Message{Type: protocol.TypeResult, ID: ids[0], Output: json.RawMessage(`{"n":0}`)})
	r1, _ := json.Marshal(&protocol.Message{Type: protocol.TypeError, ID: ids[1], Error: protocol.Errorf(protocol.CodeNotFound, "no such provider")})
	nested := protocol.AppendBatch(nil, [][]byte{r0, r1})
	if err := ext.SendFrame(protocol.AppendBatch(nil, [][]byte{nested, r0})); err != nil {
		t.Fatal(err)
	}
	if _, err := log.await(ctx, "batch inside"); err != nil {
		t.Fatalf("a batch inside a batch was not refused: %v", err)
	}
	if err := ext.SendFrame(protocol.AppendBatch(nil, [][]byte{r0, r1})); err != nil {
		t.Fatal(err)
	}
	// The first answer of the refused frame went through; the shim sees
	// each call answered once, in order.
	if m := s.Expect(ctx, protocol.TypeResult); m.ID != ids[0] || string(m.Output) != `{"n":0}` {
		t.Errorf("first answer %+v", m)
	}
	if m := s.Expect(ctx, protocol.TypeError); m.ID != ids[1] || m.Error.Code != protocol.CodeNotFound {
		t.Errorf("second answer %+v", m)
	}
}

// The answers of a batch from the browser reach each shim together, and a
// message between them in the batch keeps its place.
func TestBrowserBatchKeepsItsOrder(t *testing.T) {
	ctx := testCtx(t)
	ext, _ := start(t, newBrowser(), fakeext.Options{Browser: batchBrowser()})
	s := dialReady(ctx, t, ext.Socket())
	ids := requestsUnderWay(ctx, t, ext, s, 3)
	var frames [][]byte
	for i, id := range ids {
		r, _ := json.Marshal(&protocol.Message{Type: protocol.TypeResult, ID: id, Output: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
		frames = append(frames, r)
		if i == 1 {
			u, _ := json.Marshal(&protocol.Message{Type: protocol.TypeTabUpdated, Tab: &protocol.Tab{ID: 7, Title: "between"}})
			frames = append(frames, u)
		}
	}
	if err := ext.SendFrame(protocol.AppendBatch(nil, frames)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 4 {
		m, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch m.Type {
		case protocol.TypeResult:
			got = append(got, m.ID)
		case protocol.TypeTabUpdated:
			got = append(got, "tab "+m.Tab.Title)
		}
	}
	if want := []string{ids[0], ids[1], "tab between", ids[2]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the shim got %q, want %q", got, want)
	}
}

// requestsUnderWay has the shim send n requests, each once the browser has
// the one before, and returns their ids: n requests that the browser has
// and has not answered.
func requestsUnderWay(ctx context.Context, t *testing.T, ext *fakeext.Ext, s *shim, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("%s.%d", s.session, i+1)
		ids = append(ids, id)
		s.SendMsg(&protocol.Message{Type: protocol.TypeRequest, ID: id, Method: protocol.MethodPin, Params: json.RawMessage(`{}`)})
		if _, err := ext.Await(ctx, func(m *protocol.Message) bool { return m.Type == protocol.TypeRequest && m.ID == id }); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}
