#!/usr/bin/env bash
# arbor bench's suites on the GPU machine (CUDA, NVIDIA OpenCL and the
# 16-core CPU backend), into $OUT/bench-*: the McSplit engines on easy
# MIVIA pairs, matching on the CS314 references and generated graphs, vertex
# cover and clique on the Yamout-study graphs. Data: .dev/data (mcs/mivia,
# matching/cs314, vc/yamout2022). Prints each suite's summary table.
#
#   scripts/gpu/bench.sh [LIMIT]     (mcs-easy pairs, default 60)
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
OUT=${OUT:-/tmp/arbor-out}
DATA=${ARBOR_DATA:-$PWD/.dev/data}
limit=${1:-60}
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-bench-cache}
run() {
	local name=$1
	shift
	echo "== $name: arbor bench $*"
	timeout 280 "$BIN" bench "$@" --data "$DATA" --out "$OUT/bench-$name" 2>"$OUT/bench-$name.err"
	echo "(rc $?; $(tail -1 "$OUT/bench-$name.err"))"
}
run mcs-easy mcs-easy --limit "$limit" --engines cpu,gpu --threads 1,0 --backends cuda --timeout 30s
run match-cs314 match-cs314 --backends cuda,opencl,cpu --timeout 30s
run match-large match-large --limit 6 --backends cuda,cpu --timeout 60s
run vc-yamout vc-yamout --timeout 20s
run clique clique-dimacs --timeout 20s
