#!/usr/bin/env bash
# Issue 21 on the GPU machine's 16 cores: one 16-thread process (the CPU
# engine: the cluster's workers run it too) against an
# embedded cluster of 4 worker processes × 4 threads (NATS JetStream on
# loopback), on medium MIVIA pairs; then the McSplit portfolio against the
# plain engine. Wall clock per run, sizes checked equal. Prints a table.
#
#   scripts/gpu/cluster.sh [PAIRS...]   (default: five mcs90 s70/s80 pairs)
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-$PWD/.dev/data}/mcs/mivia
OUT=${OUT:-/tmp/arbor-out}
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-cluster-cache}
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(mcs90_b03_s70.A00 mcs90_b03_s70.A01 mcs90_b03_s80.A01 mcs90_b03_s80.A02 mcs90_b03m_s80.A01 mcs90_b06_s80.A02)
rows=()
timed() { # timed NAME ARGS...: prints "size seconds"
	local t0 t1 out
	t0=$(date +%s.%N)
	out=$("$BIN" "$@" --json 2>"$OUT/cluster-last.err")
	t1=$(date +%s.%N)
	echo "$(grep -o '"size": *[0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$') $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')"
}
for p in "${pairs[@]}"; do
	g=$DATA/$p h=$DATA/${p/.A/.B}
	one=$(timed mcs "$g" "$h" --engine cpu --threads 16)
	clu=$(timed mcs "$g" "$h" --cluster embedded --workers 4 --threads 4)
	por=$(timed mcs "$g" "$h" --engine portfolio)
	rows+=("$(printf '%-22s cpu 16 threads: %-10s 4x4 cluster: %-10s portfolio (16 threads + GPU): %s' "$p" "$one" "$clu" "$por")")
done
echo "== summary (size seconds)"
printf '%s\n' "${rows[@]}"
