#!/usr/bin/env bash
# BHOSLIB vertex cover on the GPU machine's CPU cores, through arbor bench:
# every instance of the given families, each capped at the given time, each
# answer checked (known optimum n − N, --verify); prints bench's table.
#
#   scripts/gpu/bhoslib.sh 60s 53-24 56-25      (default: 60s and every family)
#
# Data: .dev/data/vc/bhoslib/frb*.mis.gz (gzip the shared .mis files: the
# device tool carries at most 64 MiB; arbor reads gzip as it is). Without
# families this is `arbor bench vc-bhoslib`. ARBOR_BIN picks the CLI
# (default .dev/arbor), e.g. a build of an older commit for a before/after
# table; results go to $OUT/bhoslib (resumable: finished runs are kept).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-$PWD/.dev/data}
OUT=${OUT:-/tmp/arbor-out}
cap=${1:-60s}
shift || true
[ -x "$BIN" ] || { echo "bhoslib.sh: $BIN not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
echo "bhoslib.sh: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), cap $cap"
if [ $# -eq 0 ]; then
	exec "$BIN" bench vc-bhoslib --data "$DATA" --timeout "$cap" --out "$OUT/bhoslib"
fi
list=$(mktemp --suffix=.csv)
trap 'rm -f "$list"' EXIT
for fam in "$@"; do
	N=${fam%-*} K=${fam#*-}
	for i in 1 2 3 4 5; do
		f="$DATA/vc/bhoslib/frb$fam-$i.mis.gz"
		[ -f "$f" ] || f=${f%.gz}
		[ -f "$f" ] && echo "vc,$f,$((N * K - N))" >>"$list"
	done
done
"$BIN" bench "$list" --timeout "$cap" --out "$OUT/bhoslib"
