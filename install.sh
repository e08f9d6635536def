#!/usr/bin/env bash
# install.sh: build and install the WebMCP bridge for the current user.
set -euo pipefail

usage() {
	cat <<'TXT'
Usage: ./install.sh [--prefix DIR] [--user-data-dir DIR]... [--no-browsers] [--uninstall]

Builds webmcp-host and webmcp-shim, installs them into PREFIX/bin, copies the
extension to PREFIX/share/webmcp-bridge/extension, and writes the
native-messaging manifest (dev.webmcp.bridge.json) that lets the extension
start webmcp-host: for every supported browser of this system (Chrome,
Chromium, Edge, Brave, Chrome for Testing; Linux and macOS) and for each
--user-data-dir given. Running it again updates what is there.

Options:
  --prefix DIR          where to install (default: $PREFIX, else ~/.local)
  --user-data-dir DIR   also register the host for a browser started with
                        --user-data-dir=DIR (repeatable)
  --no-browsers         do not write the manifest into the browsers' own
                        user-level folders (only --user-data-dir ones)
  --uninstall           remove everything install.sh wrote (pass the same
                        --prefix and --user-data-dir options)
  -h, --help            this text
TXT
}

prefix="${PREFIX:-$HOME/.local}"
uninstall=0
browsers=1
dirs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#*=}"; shift ;;
	--user-data-dir) [ $# -ge 2 ] || { echo "install.sh: --user-data-dir needs a folder" >&2; exit 2; }; dirs+=("$2"); shift 2 ;;
	--user-data-dir=*) dirs+=("${1#*=}"); shift ;;
	--no-browsers) browsers=0; shift ;;
	--uninstall) uninstall=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see ./install.sh --help)" >&2; exit 2 ;;
	esac
done

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
bin="$prefix/bin"
share="$prefix/share/webmcp-bridge"

manifest_args=()
for d in ${dirs[@]+"${dirs[@]}"}; do
	mkdir -p "$d"
	manifest_args+=(--user-data-dir "$(cd "$d" && pwd)")
done
[ "$browsers" = 1 ] || manifest_args+=(--no-browsers)

if [ "$uninstall" = 1 ]; then
	if [ -x "$bin/webmcp-host" ]; then
		"$bin/webmcp-host" uninstall ${manifest_args[@]+"${manifest_args[@]}"}
	fi
	rm -f "$bin/webmcp-host" "$bin/webmcp-shim"
	rm -rf "$share"
	echo "Removed the WebMCP bridge from $prefix."
	exit 0
fi

if ! command -v go >/dev/null 2>&1; then
	echo "install.sh: Go is not installed or not on PATH: install Go 1.26 or later (https://go.dev/doc/install) and run ./install.sh again" >&2
	exit 1
fi

mkdir -p "$bin" "$share"
(cd "$src" && go build -trimpath -o "$bin/" ./cmd/webmcp-host ./cmd/webmcp-shim)
rm -rf "$share/extension.new"
cp -R "$src/extension" "$share/extension.new"
rm -rf "$share/extension"
mv "$share/extension.new" "$share/extension"

"$bin/webmcp-host" install ${manifest_args[@]+"${manifest_args[@]}"}

ext_id="$("$bin/webmcp-host" extension-id)"
cat <<TXT

Installed webmcp-host and webmcp-shim in $bin.

Next:
  1. Load the extension: open chrome://extensions, turn on Developer mode,
     click "Load unpacked" and pick
       $share/extension
     (its ID is $ext_id).
  2. Register the shim with your agent, e.g. Claude Code:
       claude mcp add webmcp -- $bin/webmcp-shim
  3. Try it: $bin/webmcp-shim demo serves a demo app at http://127.0.0.1:8765/;
     open it in the browser, then $bin/webmcp-shim status shows its tools.
     If nothing shows up: $bin/webmcp-shim doctor
TXT
case ":$PATH:" in
*":$bin:"*) ;;
*) echo; echo "Note: $bin is not on your PATH." ;;
esac
