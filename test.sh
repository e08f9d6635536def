#!/usr/bin/env bash
# test.sh: runs every test of the project: go vet and staticcheck, the extension's unit tests
# (Node's test runner), and the Go tests with the race detector, including the
# end-to-end tests that drive real Chromium with the real extension, host and
# shim (they need Chromium: apt-get install -y chromium; with CI set, a missing
# browser fails them instead of skipping).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
go vet ./...
# staticcheck, the version CI pins (fetched from the Go module proxy once).
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
node --test extension/test/
# Chromium 156's browser process now and then dies of a failed CHECK
# (SIGILL) while a test in native mode navigates a page with WebMCP tools
# (a getTools() under way as a document navigates: docs/limits.md): the e2e tests
# that failed only so run once more, in new browsers, and fail if they
# fail again (internal/crashrerun reads the output and says which). Any
# other failure fails at once, as the first run reported it.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if go test -race -count=1 -timeout 30m "$@" ./... 2>&1 | tee "$log"; then
	exit 0
fi
if [ $# -ne 0 ] || ! again="$(go run ./internal/crashrerun <"$log")"; then
	exit 1
fi
echo "test.sh: Chromium crashed under $again (above); running it once more" >&2
go test -race -count=1 -timeout 30m ./e2e -run "$again"
