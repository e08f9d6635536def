# install.ps1: install the WebMCP bridge for the current user on Windows.
# The installer is webmcp-host's (webmcp-host install --prefix): this script
# only finds or builds the binaries and runs it; install.sh does the same on
# Linux and macOS. Where scripts are blocked, run it as
#   powershell -ExecutionPolicy Bypass -File .\install.ps1 [OPTIONS]

$ErrorActionPreference = 'Stop'

function Show-Usage {
	@'
Usage: .\install.ps1 [--prefix DIR] [--browser KEY]... [--no-browsers]
                     [--user-data-dir DIR]... [--extension-id ID]... [--uninstall]

Builds webmcp-host.exe and webmcp-shim.exe (from a release archive: takes the
ones beside it, with no Go needed), installs them into PREFIX\bin, copies the
extension to PREFIX\share\webmcp-bridge\extension (and for Firefox, with
Firefox's manifest, to ...\firefox-extension), writes the
native-messaging manifest (dev.webmcp.bridge.json) into
PREFIX\share\webmcp-bridge\NativeMessagingHosts, and points the registry
value that each supported browser installed here reads at it:
HKCU\Software\VENDOR\NativeMessagingHosts\dev.webmcp.bridge (Chrome and its
Beta, Dev and Canary share Google\Chrome's; Chromium, Microsoft\Edge, and
BraveSoftware\Brave-Browser plus Chrome's for Brave). Firefox reads
HKCU\Software\Mozilla\NativeMessagingHosts\dev.webmcp.bridge, which names a
manifest of its own (allowed_extensions, the add-on's ID) in
PREFIX\share\webmcp-bridge\firefox\NativeMessagingHosts. A browser started
with --user-data-dir reads the same values: nothing more is needed for it. It
records what it wrote in PREFIX\share\webmcp-bridge\install-record. Running
it again updates what is there. (It runs webmcp-host install --prefix
PREFIX, which does all this.)

Options:
  --prefix DIR          where to install (default:
                        %LOCALAPPDATA%\Programs\webmcp-bridge)
  --browser KEY         register for a browser that does not seem installed
                        (repeatable): chrome, chrome-beta, chrome-dev,
                        chrome-canary, chrome-for-testing, chromium, edge,
                        brave, firefox
  --no-browsers         do not write the browsers' registry values
  --user-data-dir DIR   taken for install.sh's sake: on Windows the
                        registry serves every profile, so nothing is written
                        into DIR (Chrome's value is written for it)
  --extension-id ID     also let the extension of ID (32 letters a-p: the ID
                        a store gave the bridge, beside the unpacked one)
                        start the host (repeatable); kept in the install
                        record, so running it again keeps it
  --uninstall           remove what the install record lists (only registry
                        values that name this install's manifest, only the
                        install's own files), and say what is left to do by
                        hand (pass the same --prefix)
  -h, --help            this text
'@
}

# Full-Path DIR: DIR taken from PowerShell's current location, as the user
# typed it (webmcp-host runs in the process's own working folder, which
# PowerShell does not move with Set-Location).
function Full-Path([string]$p) {
	return $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($p)
}

$prefix = Join-Path $env:LOCALAPPDATA 'Programs\webmcp-bridge'
$verb = 'install'
$rest = @()
for ($i = 0; $i -lt $args.Count; $i++) {
	$a = [string]$args[$i]
	if ($a -in @('--prefix', '--user-data-dir', '--browser', '--extension-id')) {
		if ($i + 1 -ge $args.Count) {
			[Console]::Error.WriteLine("install.ps1: $a needs a value (see .\install.ps1 --help)")
			exit 2
		}
		$i++
		$v = [string]$args[$i]
		if ($a -notin @('--browser', '--extension-id')) { $v = Full-Path $v }
		$rest += @($a, $v)
		if ($a -eq '--prefix') { $prefix = $v }
	} elseif ($a -match '^(--(?:prefix|user-data-dir))=(.*)$') {
		$v = Full-Path $Matches[2]
		$rest += @($Matches[1], $v)
		if ($Matches[1] -eq '--prefix') { $prefix = $v }
	} elseif ($a -match '^--(?:browser|extension-id)=' -or $a -eq '--no-browsers') {
		$rest += $a
	} elseif ($a -eq '--uninstall') {
		$verb = 'uninstall'
	} elseif ($a -in @('-h', '--help', '-?', '/?')) {
		Show-Usage
		exit 0
	} else {
		[Console]::Error.WriteLine("install.ps1: unknown option $a (see .\install.ps1 --help)")
		exit 2
	}
}

$src = $PSScriptRoot
$tmp = Join-Path ([IO.Path]::GetTempPath()) ('webmcp-bridge-' + [guid]::NewGuid())
$code = 0
try {
	# A release archive holds the binaries beside this script and no
	# go.mod; a source checkout has go.mod, and builds.
	if (-not (Test-Path (Join-Path $src 'go.mod')) -and (Test-Path (Join-Path $src 'webmcp-host.exe')) -and (Test-Path (Join-Path $src 'webmcp-shim.exe'))) {
		$hostExe = Join-Path $src 'webmcp-host.exe'
	} elseif (Get-Command go -ErrorAction SilentlyContinue) {
		New-Item -ItemType Directory -Path $tmp | Out-Null
		Push-Location $src
		try {
			& go build -trimpath -o ($tmp + '\') ./cmd/webmcp-host ./cmd/webmcp-shim
			$code = $LASTEXITCODE
		} finally {
			Pop-Location
		}
		$hostExe = Join-Path $tmp 'webmcp-host.exe'
	} elseif ($verb -eq 'uninstall' -and (Test-Path (Join-Path $prefix 'bin\webmcp-host.exe'))) {
		# Windows keeps the file of a program that runs: a copy of the
		# installed webmcp-host.exe removes the install.
		New-Item -ItemType Directory -Path $tmp | Out-Null
		Copy-Item (Join-Path $prefix 'bin\webmcp-host.exe') $tmp
		$hostExe = Join-Path $tmp 'webmcp-host.exe'
	} else {
		[Console]::Error.WriteLine('install.ps1: Go is not installed or not on PATH: install Go 1.26 or later (https://go.dev/doc/install) and run .\install.ps1 again, or use a release archive, which needs no Go')
		$code = 1
	}
	if ($code -eq 0) {
		if ($verb -eq 'install') {
			$rest = @('--extension', (Join-Path $src 'extension')) + $rest
		}
		# --prefix first: one given to this script comes after it, and wins.
		& $hostExe $verb --prefix (Join-Path $env:LOCALAPPDATA 'Programs\webmcp-bridge') @rest
		$code = $LASTEXITCODE
	}
} finally {
	if (Test-Path $tmp) { Remove-Item -Recurse -Force $tmp -ErrorAction SilentlyContinue }
}
exit $code
