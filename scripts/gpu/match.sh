#!/usr/bin/env bash
# Handshaking matching benchmark on the GPU machine (issue 7). Runs from the
# repo root with the binaries built here by scripts/build-dev.sh:
#   .dev/algorithms_matching.test  (the benchmark; it generates its graphs)
# R-MAT (edge factor 16) and G(n,p) graphs from 1e5 to 1e8 edges, fast engine
# (spec up to 1e6 edges), on cuda and on the cpu backend (all cores); the
# benchmark itself fails if any backend's matching differs from the first
# one's, and checks every matching with the independent checker.
# Prints a table: graph, engine, edges, backend, passes, device-loop ms,
# end-to-end ms, edges/s (end to end), first-pass edges/s, loop GB/s (byte
# model), measured copy GB/s, % of the copy-bandwidth floor (floor%: every
# pass reads its arcs once and writes the kept ones, and the first pass
# also reads them for its strongest neighbours; filt%: without that read),
# and the CPU/CUDA loop-time ratio, then each engine's device time per phase.
# ARBOR_BENCH_TIME (default 1x) sets the runs per benchmark (e.g. 3x).
# Budget: ≤ 6 minutes (guarded by timeouts).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=.dev/algorithms_matching.test
[ -x "$BIN" ] || { echo "match.sh: $BIN missing (run scripts/build-dev.sh)"; exit 1; }
MAX=${ARBOR_BENCH_MAX_EDGES:-1e8}
LOG=$(mktemp)
nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || true
ARBOR_BENCH_MAX_EDGES=$MAX ARBOR_BENCH_BACKENDS=${ARBOR_BENCH_BACKENDS:-cuda,cpu} \
	timeout 230 "$BIN" -test.run '^$' -test.bench 'BenchmarkHandshake' -test.benchtime "${ARBOR_BENCH_TIME:-1x}" -test.timeout 235s 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
echo
echo "=== match benchmark (rc=$rc)"
awk '
/^BenchmarkHandshake\// {
	split($1, p, "/"); g = p[2]; be = p[3]; eng = p[4]; sub(/-[0-9]+$/, "", eng)
	delete v
	for (i = 3; i < NF; i += 2) v[$(i+1)] = $i
	key = g "/" eng
	if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
	row[key, be] = sprintf("%-14s %-8s %11d %-7s %6d %10.2f %10.2f %12.3g %12.3g %8.1f %8.1f %7.1f %6.1f", g, eng, v["edges"], be, v["passes"], v["loop-ms"], v["e2e-ms"], v["edges/s"], v["pass1-edges/s"], v["GB/s"], v["copy-GB/s"], v["floor-%"], v["filter-floor-%"])
	loop[key, be] = v["loop-ms"]
	phase[key, be] = sprintf("%-14s %-8s %-7s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f", g, eng, be, v["argmax-ms"], v["hs-ms"], v["filter-ms"], v["mark-ms"], v["scan-ms"], v["pack-ms"])
	bes[be] = 1
}
END {
	printf "%-14s %-8s %11s %-7s %6s %10s %10s %12s %12s %8s %8s %7s %6s\n", "graph", "eng", "edges", "backend", "passes", "loop-ms", "e2e-ms", "edges/s", "pass1-e/s", "GB/s", "copyGB/s", "floor%", "filt%"
	for (k = 1; k <= n; k++) {
		key = order[k]
		for (be in bes) if ((key, be) in row) print row[key, be]
		if (((key, "cuda") in loop) && ((key, "cpu") in loop) && loop[key, "cuda"] > 0)
			printf "%-14s %-8s cpu/cuda loop-time ratio: %.1fx\n", "", "", loop[key, "cpu"] / loop[key, "cuda"]
	}
	print ""
	print "device time per phase, summed over the passes (ms; filter and pack include the next argmax)"
	printf "%-14s %-8s %-7s %9s %9s %9s %9s %9s %9s\n", "graph", "eng", "backend", "argmax", "handshake", "filter", "mark", "scan", "pack"
	for (k = 1; k <= n; k++)
		for (be in bes) if ((order[k], be) in phase) print phase[order[k], be]
}' "$LOG"
if grep -q "output differs" "$LOG"; then echo "MISMATCH between backends"; else echo "outputs identical across backends (mate hashes checked in the benchmark)"; fi
# Each kernel alone on the first pass of the graphs from 1e7 edges (CUDA):
# device time and bandwidth by the byte model.
echo
echo "first-pass kernels alone (CUDA; ms and GB/s by the byte model)"
ARBOR_BENCH_MAX_EDGES=$MAX ARBOR_BENCH_BACKENDS=cuda timeout 120 "$BIN" -test.run '^$' -test.bench 'BenchmarkPass1Kernels' \
	-test.benchtime 1x 2>&1 | awk '/^BenchmarkPass1Kernels\// {
	delete v; for (i = 3; i < NF; i += 2) v[$(i+1)] = $i
	split($1, p, "/"); printf "%-14s", p[2]
	for (k in v) if (k ~ /-ms$/) { n = k; sub(/-ms$/, "", n); printf "  %s %.3f ms (%.0f GB/s)", n, v[k], v[n "-GB/s"] }
	printf "\n" }'
rm -f "$LOG"
exit $rc
