#!/usr/bin/env bash
# The partition search with weights per edge (part) against per pair of
# cliques (pair) on the GPU machine's cores: 16 seeds at once, each alone
# to the optimum or the cap (TestLSMeasure), then the hit lines.
#
#   scripts/gpu/ls-pair.sh CAP INSTANCES (e.g. 30s frb56-25-1,frb59-26-4)
#
# Needs .dev/vertexcover.test and .dev/data/vc/bhoslib.
set -uo pipefail
cd "$(dirname "$0")/../.."
cap=${1:-30s}
files=${2:-frb56-25-1,frb59-26-4}
export ARBOR_DATA=${ARBOR_DATA:-$PWD/.dev/data}
for alg in ${ALGS:-part pair}; do
	.dev/vertexcover.test -test.run TestLSMeasure -test.v \
		-ls "$alg" -ls.files "$files" -ls.seeds "${SEEDS:-1-16}" -ls.par 16 -ls.cap "$cap" 2>&1 | sed 's/.*_test.go:[0-9]*: //' |
		awk -v alg="$alg" '/at target/ { print; next }
			/k steps\/s/ { n++; s += $(NF-2); if ($0 ~ /target\) in/) { split($0, a, " in "); } }
			END { if (n) printf "%s: mean %.0f k steps/s per run over %d runs\n", alg, s/n, n }'
done
