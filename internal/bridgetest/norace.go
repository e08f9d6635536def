//go:build !race

package bridgetest

const raceEnabled = false
