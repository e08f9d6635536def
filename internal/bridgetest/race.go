//go:build race

package bridgetest

// raceEnabled builds the binaries under test with -race too, so that a race
// in a child process fails the test that ran it.
const raceEnabled = true
