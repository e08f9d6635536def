// Package stopevent asks a webmcp-host or webmcp-shim to stop on Windows,
// which has no SIGTERM: each of them waits on a named event of its own,
// which only the user may open, and ends as it does on SIGTERM (a host
// removes its endpoint, a shim ends its session) when another of the
// user's processes sets it ([Signal]): uninstall does. Elsewhere [Notify]
// adds nothing and [Signal] is not supported: signals do this there.
//
// Production code.
package stopevent

import "strconv"

// Name is the stop event of process pid, in its session's namespace.
func Name(pid int) string { return `Local\webmcp-bridge-stop-` + strconv.Itoa(pid) }
