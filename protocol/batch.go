package protocol

import "bytes"

// batchHead and batchTail frame the messages of a batch as the Go encoder
// writes it ([Message.MarshalJSON]).
var (
	batchHead = []byte(`{"type":"batch","messages":[`)
	batchTail = []byte(`]}`)
)

// BatchOverhead is how many bytes a batch adds to its messages: the frame
// around them and a comma between each two (n messages: BatchOverhead +
// n - 1).
var BatchOverhead = len(batchHead) + len(batchTail)

// AppendBatch appends to dst the batch message that carries msgs, each a
// whole message as compact JSON (a trailing newline is left out), without
// decoding or re-encoding them.
func AppendBatch(dst []byte, msgs [][]byte) []byte {
	dst = append(dst, batchHead...)
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, bytes.TrimSuffix(m, []byte("\n"))...)
	}
	return append(dst, batchTail...)
}
