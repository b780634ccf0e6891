#!/usr/bin/env bash
# Issue 19 on the GPU machine's 16 cores: the pair engine's heuristics (h1
# --block-order, h2 --dead-end, h3 --restarts) and the portfolio against
# the plain parallel engine, on the six medium MIVIA pairs of
# TestMeasureHeuristics (original McSplit 5–60 s), each capped. Prints a
# table: pair, configuration, size, proven, seconds.
#
#   scripts/gpu/heuristics.sh [CAP]     (default 15s)
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-$PWD/.dev/data}/mcs/mivia
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-h-cache}
cap=${1:-15s}
rows=()
for p in mcs10_b03_s40.A00 mcs30_b09_s35.A02 mcs50_b09_s40.A00 mcs50_r02_s30.A00 mcs70_m3Dr4_s40.A00 mcs90_b09_s100.A02; do
	for cfg in "--engine cpu" "--engine cpu --block-order" "--engine cpu --dead-end 1000000" "--engine cpu --restarts --threads 1" "--engine portfolio"; do
		t0=$(date +%s.%N)
		out=$("$BIN" mcs "$DATA/$p" "$DATA/${p/.A/.B}" $cfg --timeout "$cap" --json 2>/dev/null | tr -d ' \n')
		t1=$(date +%s.%N)
		size=$(grep -o '"size":[0-9]*' <<<"$out" | head -1 | cut -d: -f2)
		proven=$(grep -o '"proven":[a-z]*' <<<"$out" | head -1 | cut -d: -f2)
		rows+=("$(printf '%-20s %-34s size %-3s proven %-5s %6.2f s' "$p" "$cfg" "$size" "$proven" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")")
	done
done
printf '%s\n' "${rows[@]}"
