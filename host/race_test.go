//go:build race

package host_test

// raceEnabled builds the host binary with the race detector when the tests
// run with it.
const raceEnabled = true
