package shim

// The SDK runs each request in a goroutine of its own, whose stack starts
// small and doubles on demand, each time copied whole with every frame on
// it. A tools/call goes deep (the middlewares, schema validation's
// recursion), so that its goroutine grew three or four times, with deep
// stacks to copy: a tenth of the shim's CPU time under load in a profile
// of 12,000 calls. growStack makes it grow once, at the start, while the
// stack is shallow (BenchmarkToolsCallStack: validating a small argument
// in a new goroutine, 25 µs before, 9.5 µs after, on the test machine).

// stackReserve is about what a tools/call's goroutine ends up using.
const stackReserve = 16 << 10

// stackIndex keeps growStack's array from being optimised away.
var stackIndex int

// growStack grows the calling goroutine's stack past stackReserve at once.
//
//go:noinline
func growStack() byte {
	var b [stackReserve]byte
	return b[stackIndex]
}
