// Package hostlink connects a shim to the webmcp-host processes of the
// browsers on this machine.
//
// A [Conn] is one connection to one host's Unix socket: it says hello,
// keeps the host's [protocol.State] up to date from the state and change
// messages, and carries calls and requests (each answered exactly once: by
// the page or the extension, by the host, or by the connection ending). A [Pool] watches the runtime
// directory, connects to every host socket that appears and drops the
// connections whose socket vanished or whose host went away.
package hostlink
