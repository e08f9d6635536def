#!/usr/bin/env bash
# install.sh: build and install the WebMCP bridge for the current user.
set -euo pipefail

usage() {
	cat <<'TXT'
Usage: ./install.sh [--prefix DIR] [--user-data-dir DIR]... [--browser KEY]...
                    [--no-browsers] [--uninstall]

Builds webmcp-host and webmcp-shim, installs them into PREFIX/bin, copies the
extension to PREFIX/share/webmcp-bridge/extension, and writes the
native-messaging manifest (dev.webmcp.bridge.json) that lets the extension
start webmcp-host: for every supported browser installed on this system
(Chrome, Chromium, Edge, Brave, Chrome Beta/Dev/Canary, Chrome for Testing;
Linux and macOS) and for each --user-data-dir given. It records what it
wrote in PREFIX/share/webmcp-bridge/install-record. Running it again updates
what is there.

Options:
  --prefix DIR          where to install (default: $PREFIX, else ~/.local)
  --user-data-dir DIR   also register the host for a browser started with
                        --user-data-dir=DIR (repeatable)
  --browser KEY         register for a browser that does not seem installed
                        (repeatable): chrome, chrome-beta, chrome-dev,
                        chrome-canary, chrome-for-testing, chromium, edge,
                        brave
  --no-browsers         do not write the manifest into the browsers' own
                        user-level folders (only --user-data-dir ones)
  --uninstall           remove everything the install record lists
                        (manifests of every profile included), stop the
                        hosts it installed, and say what is left to do by
                        hand (pass the same --prefix)
  -h, --help            this text
TXT
}

case "$(uname -s)" in
Linux|Darwin) ;;
*) echo "install.sh: $(uname -s) is not supported yet: the WebMCP bridge installs on Linux and macOS only" >&2; exit 1 ;;
esac

prefix="${PREFIX:-$HOME/.local}"
uninstall=0
host_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#*=}"; shift ;;
	--user-data-dir) [ $# -ge 2 ] || { echo "install.sh: --user-data-dir needs a folder" >&2; exit 2; }; host_args+=(--user-data-dir "$2"); shift 2 ;;
	--user-data-dir=*) host_args+=(--user-data-dir "${1#*=}"); shift ;;
	--browser) [ $# -ge 2 ] || { echo "install.sh: --browser needs a name (see --help)" >&2; exit 2; }; host_args+=(--browser "$2"); shift 2 ;;
	--browser=*) host_args+=(--browser "${1#*=}"); shift ;;
	--no-browsers) host_args+=(--no-browsers); shift ;;
	--uninstall) uninstall=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see ./install.sh --help)" >&2; exit 2 ;;
	esac
done

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
bin="$prefix/bin"
share="$prefix/share/webmcp-bridge"
record="$share/install-record"

if [ "$uninstall" = 1 ]; then
	if [ ! -f "$record" ] && [ ! -e "$bin/webmcp-host" ] && [ ! -e "$bin/webmcp-shim" ] && [ ! -e "$share" ]; then
		echo "Nothing to uninstall: no WebMCP bridge in $prefix (no $record)."
		exit 0
	fi
	host="$bin/webmcp-host"
	tmp=""
	if [ ! -x "$host" ]; then
		# The record lists what to remove, but webmcp-host reads it.
		tmp="$(mktemp -d)"
		(cd "$src" && go build -trimpath -o "$tmp/" ./cmd/webmcp-host)
		host="$tmp/webmcp-host"
	fi
	status=0
	if [ -f "$record" ]; then
		"$host" uninstall --record "$record" ${host_args[@]+"${host_args[@]}"} || status=$?
	else
		# An install made before the record existed: the manifests that
		# name this binary, the binaries and the extension's folder.
		"$host" uninstall ${host_args[@]+"${host_args[@]}"} || status=$?
		for f in "$bin/webmcp-host" "$bin/webmcp-shim"; do
			[ ! -e "$f" ] || { rm -f "$f"; echo "removed $f"; }
		done
		[ ! -e "$share" ] || { rm -rf "$share"; echo "removed $share"; }
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
	if [ "$status" = 0 ]; then
		echo; echo "Removed the WebMCP bridge from $prefix."
	else
		echo; echo "Some of the WebMCP bridge in $prefix could not be removed: see the messages above."
	fi
	cat <<TXT
Left for you to do:
  - remove the extension: chrome://extensions → WebMCP bridge → Remove, in
    each browser and profile where you loaded it;
  - if you registered webmcp-shim with an agent, remove it there, e.g.
    claude mcp remove webmcp, codex mcp remove webmcp, or the "webmcp"
    entry (and Claude Code's "webmcp-shim context" hook) in its settings.
TXT
	exit "$status"
fi

if ! command -v go >/dev/null 2>&1; then
	echo "install.sh: Go is not installed or not on PATH: install Go 1.26 or later (https://go.dev/doc/install) and run ./install.sh again" >&2
	exit 1
fi

# add KIND PATH: note what the install wrote in the record (once).
add() {
	mkdir -p "$share"
	touch "$record"
	grep -qxF "$1	$2	" "$record" || printf '%s\t%s\t\n' "$1" "$2" >>"$record"
}
# mkdirs DIR: mkdir -p, noting each folder it creates.
mkdirs() {
	local d="$1" missing=()
	while [ ! -e "$d" ]; do missing=("$d" ${missing[@]+"${missing[@]}"}); d="$(dirname "$d")"; done
	mkdir -p "$1"
	for d in ${missing[@]+"${missing[@]}"}; do add dir "$d"; done
}

first=1
[ ! -f "$record" ] || first=0
mkdirs "$share"
mkdirs "$bin"
(cd "$src" && go build -trimpath -o "$bin/" ./cmd/webmcp-host ./cmd/webmcp-shim)
add file "$bin/webmcp-host"
add file "$bin/webmcp-shim"
rm -rf "$share/extension.new"
cp -R "$src/extension" "$share/extension.new"
rm -rf "$share/extension"
mv "$share/extension.new" "$share/extension"
add tree "$share/extension"

"$bin/webmcp-host" install --record "$record" ${host_args[@]+"${host_args[@]}"}

ext_id="$("$bin/webmcp-host" extension-id)"
what="Installed"
[ "$first" = 1 ] || what="Updated"
cat <<TXT

$what webmcp-host and webmcp-shim in $bin.

Next:
  1. Load the extension: open chrome://extensions, turn on Developer mode,
     click "Load unpacked" and pick
       $share/extension
     (its ID is $ext_id; where it is loaded already, click its reload
     button). A browser started with --user-data-dir=DIR needs
     ./install.sh --user-data-dir DIR.
  2. Register the shim with your agent:
TXT
agents=0
for a in claude codex gemini cursor code; do
	command -v "$a" >/dev/null 2>&1 || continue
	case "$a" in
	claude) line="claude mcp add --scope user webmcp -- $bin/webmcp-shim   (and the prompt hook: $bin/webmcp-shim register claude)" ;;
	codex) line="codex mcp add webmcp -- $bin/webmcp-shim" ;;
	gemini) line="gemini mcp add --scope user webmcp $bin/webmcp-shim   (then trust your project's folder in gemini)" ;;
	cursor) line="$bin/webmcp-shim register cursor --write" ;;
	code) line="$bin/webmcp-shim register vscode --write" ;;
	esac
	echo "       $line"
	agents=$((agents + 1))
done
if [ "$agents" = 0 ]; then
	echo "       no agent CLI found on PATH; $bin/webmcp-shim register claude|codex|gemini|cursor|vscode"
	echo "       prints what each one needs"
else
	echo "       (other agents: $bin/webmcp-shim register claude|codex|gemini|cursor|vscode)"
fi
cat <<TXT
  3. Try it: $bin/webmcp-shim demo serves a demo app at http://127.0.0.1:8765/;
     open it in the browser, then $bin/webmcp-shim status shows its tools.
     If nothing shows up: $bin/webmcp-shim doctor
TXT
case ":$PATH:" in
*":$bin:"*) ;;
*) echo; echo "Note: $bin is not on your PATH; the commands above use full paths, and so does everything register writes." ;;
esac
