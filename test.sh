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
go test -race -count=1 -timeout 30m "$@" ./...
