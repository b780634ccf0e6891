#!/usr/bin/env bash
# Kernel conformance on the GPU machine: `arbor verify` runs every kernel
# check on every device present (CUDA, NVIDIA OpenCL, PoCL if installed)
# against the CPU twins, then the primitives' benchmarks give throughput.
# Needs .dev/arbor and .dev/tests.test (scripts/build-dev.sh); uses
# .dev/data for the real-graph checks when it is there. About 1-2 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"

.dev/arbor devices || true
echo

# The full table goes to the log; the summary below repeats it compactly
# (one line per kernel) so that the last lines of the log say everything.
timeout 150 .dev/arbor verify | tee "$OUT/verify.txt"
rc=${PIPESTATUS[0]}

if [ -x .dev/tests.test ]; then
	echo
	echo "== primitive throughput (16M int32 elements, device-resident)"
	timeout 60 .dev/tests.test -test.run '^$' -test.bench 'Primitive' -test.benchtime 10x 2>&1 |
		grep -E '^(Benchmark|ok|FAIL)' || true
fi

echo
echo "== verify summary (rc=$rc): kernel  device=result(time) ..."
awk 'NR == 1 { next } /^$/ { exit }
	{ res = $(NF-1); if (res ~ /^\[/) res = $(NF-2) "" res;
	  line[$1] = line[$1] sprintf("  %s=%s(%s)", $2, res, $NF); if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END { for (i = 1; i <= n; i++) printf "%-28s%s\n", order[i], line[order[i]] }' "$OUT/verify.txt"
grep -E '^\[[0-9]+\]' "$OUT/verify.txt" | cut -c1-300 || true
exit "$rc"
