#!/usr/bin/env bash
# install.sh: build and install the WebMCP bridge for the current user.
# The installer is webmcp-host's (webmcp-host install --prefix): this script
# only finds or builds the binaries and runs it; install.ps1 does the same
# on Windows.
set -euo pipefail

usage() {
	cat <<'TXT'
Usage: ./install.sh [--prefix DIR] [--user-data-dir DIR]... [--browser KEY]...
                    [--extension-id ID]... [--no-browsers] [--uninstall]

Builds webmcp-host and webmcp-shim (from a release archive: takes the ones
beside it, with no Go needed), installs them into PREFIX/bin, copies the
extension to PREFIX/share/webmcp-bridge/extension (and for Firefox, with
Firefox's manifest, to .../firefox-extension), and writes the
native-messaging manifest (dev.webmcp.bridge.json) that lets the extension
start webmcp-host: for every supported browser installed on this system
(Chrome, Chromium, Edge, Brave, Chrome Beta/Dev/Canary, Chrome for Testing,
Firefox, whose manifest lists the add-on's ID in allowed_extensions; Linux
and macOS; install.ps1 on Windows) and for each --user-data-dir given.
It records what it wrote in PREFIX/share/webmcp-bridge/install-record.
Running it again updates what is there. (It runs webmcp-host install
--prefix PREFIX, which does all this.)

Options:
  --prefix DIR          where to install (default: $PREFIX, else ~/.local)
  --user-data-dir DIR   also register the host for a browser started with
                        --user-data-dir=DIR (repeatable)
  --browser KEY         register for a browser that does not seem installed
                        (repeatable): chrome, chrome-beta, chrome-dev,
                        chrome-canary, chrome-for-testing, chromium, edge,
                        brave, firefox
  --extension-id ID     also let the extension of ID (32 letters a-p: the ID
                        a store gave the bridge, beside the unpacked one)
                        start the host (repeatable); kept in the install
                        record, so running it again keeps it
  --no-browsers         do not write the manifest into the browsers' own
                        user-level folders (only --user-data-dir ones)
  --uninstall           remove what the install record lists (manifests of
                        every profile included; only the install's own
                        places, never through a symbolic link), stop your
                        hosts and shims that run its binaries, remove the
                        HTTP token and the empty runtime folder, and say
                        what is left to do by hand (pass the same --prefix)
  -h, --help            this text
TXT
}

case "$(uname -s)" in
Linux|Darwin) ;;
*) echo "install.sh: $(uname -s) is not supported: on Windows, run install.ps1 in PowerShell" >&2; exit 1 ;;
esac

verb=install
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix|--user-data-dir|--browser|--extension-id)
		[ $# -ge 2 ] || { echo "install.sh: $1 needs a value (see ./install.sh --help)" >&2; exit 2; }
		args+=("$1" "$2"); shift 2 ;;
	--prefix=*|--user-data-dir=*|--browser=*|--extension-id=*|--no-browsers) args+=("$1"); shift ;;
	--uninstall) verb=uninstall; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see ./install.sh --help)" >&2; exit 2 ;;
	esac
done

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="${PREFIX:-$HOME/.local}"
# A release archive holds the binaries beside this script and no go.mod;
# a source checkout has go.mod, and builds (a webmcp-host that go build
# left at its root is not taken).
tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
if [ ! -e "$src/go.mod" ] && [ -x "$src/webmcp-host" ] && [ -x "$src/webmcp-shim" ]; then
	host="$src/webmcp-host"
elif command -v go >/dev/null 2>&1; then
	tmp="$(mktemp -d)"
	(cd "$src" && go build -trimpath -o "$tmp/" ./cmd/webmcp-host ./cmd/webmcp-shim)
	host="$tmp/webmcp-host"
elif [ "$verb" = uninstall ] && [ -x "$prefix/bin/webmcp-host" ]; then
	host="$prefix/bin/webmcp-host"
else
	echo "install.sh: Go is not installed or not on PATH: install Go 1.26 or later" >&2
	echo "  (https://go.dev/doc/install) and run ./install.sh again" >&2
	exit 1
fi
[ "$verb" = uninstall ] || args=(--extension "$src/extension" ${args[@]+"${args[@]}"})
# --prefix first: one given to this script comes after it, and wins.
"$host" "$verb" --prefix "$prefix" ${args[@]+"${args[@]}"} || exit $?
