package main

import "io"

// stopProcesses would stop the user's own processes that run one of the
// binaries paths. Windows has no SIGTERM, and stopping hosts there is not
// written yet: it says so, with what to do instead, and stops none.
func stopProcesses(paths []string, stderr io.Writer) []proc {
	if len(paths) == 0 {
		return nil
	}
	say(stderr, "webmcp-host uninstall: not supported on Windows yet: stopping running hosts and shims; close the browser and your agents to stop them")
	return nil
}
