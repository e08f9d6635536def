package main

import (
	"fmt"
	"io"
)

// stopHosts would stop the user's running hosts of the binaries paths.
// Windows has no SIGTERM, and stopping a host there is not written yet: it
// says so and stops none.
func stopHosts(paths []string, stderr io.Writer) []int {
	if len(paths) == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "webmcp-host uninstall: not supported on Windows yet: stopping running hosts; close the browser to stop them\n")
	return nil
}
