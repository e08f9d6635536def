// Package bridgetest is the test harness shared by the bridge's Go tests:
// the pieces that the host's, the shim's and the connection's tests used to
// write each for themselves.
//
//   - [Context] bounds a test's waits (a hang guard, never a timing check);
//     [RuntimeDir] is a private, short runtime directory.
//   - [Log] collects a component's log lines into the test log and lets a
//     test wait for a line; a data race a child process reports fails the
//     test.
//   - [Main] and [Binary] build webmcp-host and webmcp-shim once per test
//     binary (with -race when the tests run with it); [ChildEnv] is the
//     environment of a child process.
//   - [StartExt] and [StartHost] run a real webmcp-host with
//     internal/fakeext playing the browser extension; a [Page] answers its
//     calls and requests by tool name and method and records them.
//   - [LineConn] is one end of a bridge socket link (newline-delimited JSON),
//     to play a shim against a host or a host against a shim; [Listen]
//     plays a host's socket.
//   - [MCPClient] is an MCP client of a shim, over any transport (the SDK's
//     in-memory transports for a shim in the test process, a
//     CommandTransport for the binary), with the helpers that await tool
//     list changes and read results.
//
// Tests that use [Binary] (and so [StartExt] and [StartHost]) call [Main]
// from TestMain.
//
// Test-only: the bridge's tests import it, no binary does.
package bridgetest
