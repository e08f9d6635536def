#!/usr/bin/env bash
# install.sh: build and install the WebMCP bridge for the current user.
set -euo pipefail

usage() {
	cat <<'TXT'
Usage: ./install.sh [--prefix DIR] [--user-data-dir DIR]... [--browser KEY]...
                    [--no-browsers] [--uninstall]

Builds webmcp-host and webmcp-shim (from a release archive: takes the ones
beside it, with no Go needed), installs them into PREFIX/bin, copies the
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
  --uninstall           remove what the install record lists (manifests of
                        every profile included; only the install's own
                        places, never through a symbolic link), stop your
                        hosts and shims that run its binaries, remove the
                        HTTP token and the empty runtime folder, and say
                        what is left to do by hand (pass the same --prefix)
  -h, --help            this text
TXT
}

# say FIRST INDENT TEXT...: print TEXT wrapped at 80 columns, after FIRST on
# its first line and after INDENT on the others; a word longer than a line
# (a long path) gets a line of its own rather than being cut.
say() {
	local line="$1" indent="$2" lead=1 w words
	shift 2
	read -ra words <<<"$*"
	for w in ${words[@]+"${words[@]}"}; do
		if [ "$lead" = 1 ]; then
			line="$line$w"
			lead=0
		elif [ $((${#line} + 1 + ${#w})) -le 80 ]; then
			line="$line $w"
		else
			printf '%s\n' "$line"
			line="$indent$w"
		fi
	done
	printf '%s\n' "$line"
}

# cmd INDENT WORD...: print a command to copy, after INDENT, continued with
# " \" on further lines (two columns deeper) when it does not fit in 80.
cmd() {
	local indent="$1" line="$1" i=0 room
	shift
	local words=("$@")
	for ((i = 0; i < ${#words[@]}; i++)); do
		room=80
		[ $((i + 1)) = ${#words[@]} ] || room=78 # for the " \"
		if [ "$i" = 0 ]; then
			line="$line${words[i]}"
		elif [ $((${#line} + 1 + ${#words[i]})) -le "$room" ]; then
			line="$line ${words[i]}"
		else
			printf '%s \\\n' "$line"
			line="$indent  ${words[i]}"
		fi
	done
	printf '%s\n' "$line"
}

case "$(uname -s)" in
Linux|Darwin) ;;
*) say "install.sh: " "  " "$(uname -s) is not supported yet: the WebMCP bridge installs on Linux and macOS only" >&2; exit 1 ;;
esac

prefix="${PREFIX:-$HOME/.local}"
uninstall=0
host_args=()
profiles=()
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix="$2"; shift 2 ;;
	--prefix=*) prefix="${1#*=}"; shift ;;
	--user-data-dir) [ $# -ge 2 ] || { echo "install.sh: --user-data-dir needs a folder" >&2; exit 2; }; host_args+=(--user-data-dir "$2"); profiles+=("$2"); shift 2 ;;
	--user-data-dir=*) host_args+=(--user-data-dir "${1#*=}"); profiles+=("${1#*=}"); shift ;;
	--browser) [ $# -ge 2 ] || { echo "install.sh: --browser needs a name (see --help)" >&2; exit 2; }; host_args+=(--browser "$2"); shift 2 ;;
	--browser=*) host_args+=(--browser "${1#*=}"); shift ;;
	--no-browsers) host_args+=(--no-browsers); shift ;;
	--uninstall) uninstall=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see ./install.sh --help)" >&2; exit 2 ;;
	esac
done

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A release archive holds the binaries beside this script and no go.mod;
# a source checkout has go.mod, and builds (a webmcp-host that go build
# left at its root is not taken).
prebuilt=0
if [ ! -e "$src/go.mod" ] && [ -x "$src/webmcp-host" ] && [ -x "$src/webmcp-shim" ]; then
	prebuilt=1
fi
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
bin="$prefix/bin"
share="$prefix/share/webmcp-bridge"
record="$share/install-record"

if [ "$uninstall" = 1 ]; then
	if [ ! -f "$record" ] && [ ! -e "$bin/webmcp-host" ] && [ ! -e "$bin/webmcp-shim" ] && [ ! -e "$share" ]; then
		say "" "  " "Nothing to uninstall: no WebMCP bridge in $prefix (no $record)."
		exit 0
	fi
	host="$bin/webmcp-host"
	tmp=""
	if [ ! -x "$host" ] && [ "$prebuilt" = 1 ]; then
		host="$src/webmcp-host"
	elif [ ! -x "$host" ]; then
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
	echo
	if [ "$status" = 0 ]; then
		say "" "  " "Removed the WebMCP bridge from $prefix."
	else
		say "" "  " "Some of the WebMCP bridge in $prefix could not be removed: see the messages above."
	fi
	cat <<'TXT'
Left for you to do:
  - remove the extension in each browser and profile where you loaded it:
    chrome://extensions → WebMCP bridge → Remove. Its files are gone, so
    until then the browser shows it as broken (a grey icon; its popup
    shows ERR_FILE_NOT_FOUND);
  - if you registered webmcp-shim with an agent, remove it there, e.g.
    claude mcp remove webmcp, codex mcp remove webmcp, or the "webmcp"
    entry (and Claude Code's "webmcp-shim context" hook) in its settings.
TXT
	exit "$status"
fi

if [ "$prebuilt" = 0 ] && ! command -v go >/dev/null 2>&1; then
	say "install.sh: " "  " "Go is not installed or not on PATH: install Go 1.26 or later (https://go.dev/doc/install) and run ./install.sh again" >&2
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
if [ "$prebuilt" = 1 ]; then
	# Beside, then renamed over: a running host or shim keeps its old file.
	for b in webmcp-host webmcp-shim; do
		cp "$src/$b" "$bin/$b.new"
		mv -f "$bin/$b.new" "$bin/$b"
	done
else
	(cd "$src" && go build -trimpath -o "$bin/" ./cmd/webmcp-host ./cmd/webmcp-shim)
fi
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
# The browsers started with the --user-data-dir folders given.
started=""
for p in ${profiles[@]+"${profiles[@]}"}; do
	started="${started:+$started or }--user-data-dir=$p"
done
echo
say "" "  " "$what webmcp-host and webmcp-shim in $bin."
echo
if [ "$first" = 0 ] && [ -n "$started" ]; then
	# Registering a profile after the install: only that profile needs
	# the extension; agents reach every browser through the same shim.
	say "Next: " "  " "load the extension in the browser started with $started: open chrome://extensions, turn on Developer mode, click \"Load unpacked\" and pick"
	say "    " "    " "$share/extension"
	say "  " "  " "(where it is loaded already, click its reload button). Your agents need nothing more: one shim reaches every browser. ./install.sh alone prints the other steps again."
	exit 0
fi
echo "Next:"
say "  1. " "     " "Load the extension: open chrome://extensions, turn on Developer mode, click \"Load unpacked\" and pick"
say "       " "       " "$share/extension"
if [ -n "$started" ]; then
	tail="Do so in the browser started with $started too: it has extensions of its own."
else
	tail="A browser started with --user-data-dir=DIR needs ./install.sh --user-data-dir DIR."
fi
say "     " "     " "(its ID is $ext_id; where it is loaded already, click its reload button). $tail"
echo "  2. Register the shim with your agent:"
agents=0
for a in claude codex gemini cursor code; do
	command -v "$a" >/dev/null 2>&1 || continue
	case "$a" in
	claude)
		cmd "       " claude mcp add --scope user webmcp -- "$bin/webmcp-shim"
		echo "       and the prompt hook, which this prints:"
		cmd "       " "$bin/webmcp-shim" register claude
		;;
	codex) cmd "       " codex mcp add webmcp -- "$bin/webmcp-shim" ;;
	gemini)
		cmd "       " gemini mcp add --scope user webmcp "$bin/webmcp-shim"
		say "       " "         " "(then trust your project's folder in gemini)"
		;;
	cursor) cmd "       " "$bin/webmcp-shim" register cursor --write ;;
	code) cmd "       " "$bin/webmcp-shim" register vscode --write ;;
	esac
	agents=$((agents + 1))
done
if [ "$agents" = 0 ]; then
	say "       " "       " "no agent CLI found on PATH; $bin/webmcp-shim register AGENT prints what AGENT (claude, codex, gemini, cursor or vscode) needs"
else
	say "       " "       " "other agents: $bin/webmcp-shim register AGENT prints what AGENT (claude, codex, gemini, cursor or vscode) needs"
fi
echo "  3. Try it:"
cmd "       " "$bin/webmcp-shim" demo
say "     " "     " "serves a demo app at http://127.0.0.1:8765/; open it in the browser, then"
cmd "       " "$bin/webmcp-shim" status
say "     " "     " "shows its tools. If nothing shows up:"
cmd "       " "$bin/webmcp-shim" doctor
case ":$PATH:" in
*":$bin:"*) ;;
*) echo; say "Note: " "  " "$bin is not on your PATH; the commands above use full paths, and so does everything register writes." ;;
esac
