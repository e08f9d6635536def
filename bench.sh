#!/bin/sh
# The benchmark command (issue 13): the whole chain against real Chromium,
# beside CDP, in both WebMCP modes. Prints the table and writes
# bench/results.md, bench/results.json and bench/latency.svg. Arguments go
# on to go test, e.g. ./bench.sh -suite.calls 300 -suite.out /tmp/bench
# (go test ./e2e -args -h lists the -suite.* knobs). Other benchmarks of
# the same folder: ./bench.sh -bench '^BenchmarkHops$' (where a call's time
# goes, bench/hops.md) and ./bench.sh -bench '^BenchmarkFloor$' (the chain
# beside its floor path, CDP and MCP-B's relay, bench/floor.md) and
# ./bench.sh -bench '^BenchmarkThreeWay$' (sum_numbers through the bridge,
# MCP-B and CDP, as issue PERF2's benchmark, bench/threeway.md) and
# ./bench.sh -bench '^BenchmarkFloorGuard$' (the chain's p50 and CPU per
# call as ratios to the floor path's, in both modes; reported, not asserted:
# docs/performance.md, "The guard").
set -eu
cd "$(dirname "$0")"
exec go test ./e2e -run '^$' -bench '^BenchmarkSuite$' -benchtime 1x -count 1 -timeout 30m "$@"
