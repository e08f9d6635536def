// Package endpoint is where the bridge's processes meet on one machine: the
// user's private runtime folder ([RuntimeDir]), the endpoint each
// webmcp-host listens on there (a Unix socket, or a named pipe named by a
// file on Windows: [Listen], [Dial], [SocketPath], [HostSockets]), the
// operating system's word on who connected ([CheckPeer]), and the removal of
// endpoints that a host left behind ([RemoveStaleSockets]). What travels
// over an endpoint is package protocol's.
//
// Nothing here trusts a file it did not check: a folder or endpoint that is
// not the user's alone is refused with an error that wraps [ErrUntrusted].
package endpoint
