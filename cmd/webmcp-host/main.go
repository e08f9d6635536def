// Command webmcp-host is the native-messaging host of the WebMCP bridge. The
// browser starts it when the bridge extension connects; see package host.
// Its install and uninstall subcommands are package installer.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/webmcp-bridge/bridge/endpoint"
	"github.com/webmcp-bridge/bridge/host"
	"github.com/webmcp-bridge/bridge/installer"
	"github.com/webmcp-bridge/bridge/internal/installrec"
	"github.com/webmcp-bridge/bridge/internal/profiling"
	"github.com/webmcp-bridge/bridge/internal/stopevent"
	"github.com/webmcp-bridge/bridge/internal/version"
	"github.com/webmcp-bridge/bridge/protocol"
)

const usage = `webmcp-host is the native-messaging host of the WebMCP bridge.

The browser starts it, through the native-messaging manifest
` + protocol.HostName + `.json, when the WebMCP bridge extension connects, and
passes the extension's origin as the first argument:

    webmcp-host ` + protocol.ExtensionOrigin + `

Firefox passes the manifest's path and the add-on's ID instead:

    webmcp-host PATH/` + protocol.HostName + `.json ` + protocol.FirefoxAddonID + `

Any other caller is refused.

It is not meant to be run by hand, except to register it with the browsers:

    webmcp-host install --prefix DIR [--extension DIR] [--user-data-dir DIR]...
                        [--browser KEY]...
        install this binary, the webmcp-shim beside it and the extension
        into DIR, register the installed host with each installed browser
        (or KEY) and profile (on Windows: registry keys under
        HKCU\Software\VENDOR\NativeMessagingHosts), keep the install record
        and print the next steps
    webmcp-host install [--user-data-dir DIR]... [--browser KEY]... [--record FILE]
        register this binary where it is (after go install)
    webmcp-host uninstall [--prefix DIR | --record FILE] [--user-data-dir DIR]...
        remove what the install record lists (only the install's own
        places), stop your hosts and shims of the install, remove the HTTP
        token; without a record, the manifests that name this binary
    webmcp-host extension-id
        print the extension's ID (in Chromium browsers; Firefox's add-on
        ID is ` + protocol.FirefoxAddonID + `)
    webmcp-host --version
        print its version (the same as webmcp-shim's and the extension's)

(install.sh and install.ps1 run these; see their --help.)

It relays between the extension (native messaging on stdin and stdout) and
any number of webmcp-shim processes, which connect to its Unix socket in the
runtime directory (on Windows, to the named pipe that a file there names),
and it exits when the browser closes its stdin (or when an uninstall asks
it to stop: SIGTERM, on Windows its stop event). It logs to stderr.

Environment:
    ` + endpoint.RuntimeDirEnv + `   the directory for the socket; default
                         $XDG_RUNTIME_DIR/webmcp, else webmcp-bridge/run in
                         your cache directory (~/.cache, ~/Library/Caches,
                         %LOCALAPPDATA%); it must be yours alone (mode 0700,
                         not a symlink; on Windows your own, with no access
                         entry for others)
    WEBMCP_DEBUG=1       log every call, cancel and answer as well
    WEBMCP_CPUPROFILE=DIR  write a CPU profile of this host's life to
                         DIR/webmcp-host-PID.pprof (go tool pprof)
    WEBMCP_HOLD=D        under load (4 or more calls under way), hold a
                         shim's calls up to D (a Go duration, default 2ms)
                         for more to join them in one message to the
                         browser; 0 sends every call at once
`

func main() {
	os.Exit(run())
}

func run() int {
	if args := os.Args[1:]; len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return installer.Run(args[0], args[1:], os.Stdout, os.Stderr)
	}
	if args := os.Args[1:]; len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Println("webmcp-host", version.Version)
		return 0
	}
	if args := os.Args[1:]; len(args) == 1 && args[0] == "extension-id" {
		fmt.Println(protocol.ExtensionID)
		return 0
	}
	origin, help, err := host.ParseArgs(os.Args[1:])
	if help {
		fmt.Print(usage)
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "webmcp-host:", err)
		return 2
	}
	// A write to a closed stdout must fail with EPIPE, not kill the host
	// before it removed its socket.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, stopEvent := stopevent.Notify(ctx) // Windows: what SIGTERM is on Unix
	defer stopEvent()
	defer profiling.Start("webmcp-host")() // with $WEBMCP_CPUPROFILE only
	hold, err := holdFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "webmcp-host:", err)
		return 2
	}
	err = host.Run(ctx, host.Options{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Debug:  os.Getenv("WEBMCP_DEBUG") != "",
		Origin: origin,
		// The IDs a store gave the extension, which the install's record
		// lists (install --extension-id).
		ExtensionIDs: installedExtensionIDs(),
		RuntimeDir:   endpoint.RuntimeDir(),
		Hold:         hold,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "webmcp-host:", err)
		return 1
	}
	return 0
}

// holdFromEnv reads $WEBMCP_HOLD as host.Options.Hold: unset is the
// default, 0 sends every call at once.
func holdFromEnv() (time.Duration, error) {
	v, ok := os.LookupEnv("WEBMCP_HOLD")
	if !ok || v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("WEBMCP_HOLD=%q: want a Go duration such as 2ms, or 0 to send every call at once", v)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// installedExtensionIDs are the extension IDs that the record of this
// binary's install (PREFIX/share/webmcp-bridge/install-record, for
// PREFIX/bin/webmcp-host) lists beside the fixed one: none when there is
// no record or it is unreadable (the fixed ID still works).
func installedExtensionIDs() []string {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return nil
	}
	rec, _, err := installrec.Load(installrec.PathFor(filepath.Dir(self)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "webmcp-host: %v: only the extension %s may start this host until it is fixed (run the installer again)\n", err, protocol.ExtensionID)
		return nil
	}
	return rec.ExtensionIDs
}
