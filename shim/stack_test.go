package shim

import (
	"encoding/json"
	"testing"

	"github.com/webmcp-bridge/bridge/shim/schemas"
)

// BenchmarkToolsCallStack validates a small argument in a new goroutine,
// as the SDK runs each tools/call, with the stack grown on demand (plain)
// and grown at once first (growStack).
func BenchmarkToolsCallStack(b *testing.B) {
	v, err := schemas.Resolve(json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`))
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"text":"x"}`)
	for _, grow := range []bool{false, true} {
		name := "plain"
		if grow {
			name = "growStack"
		}
		b.Run(name, func(b *testing.B) {
			done := make(chan error)
			for b.Loop() {
				go func() {
					if grow {
						growStack()
					}
					done <- v.Validate(args)
				}()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
