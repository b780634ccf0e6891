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
	{ for (d = 2; d < NF; d++) if ($d ~ /^[a-z]+:[0-9]+$/) break
	  k = $1; for (j = 2; j < d; j++) k = k " " $j
	  res = $(NF-1); if (res ~ /^\[/) res = $(NF-2) res
	  line[k] = line[k] sprintf("  %s=%s(%s)", $d, res, $NF); if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	END { for (i = 1; i <= n; i++) printf "%-30s%s\n", order[i], line[order[i]] }' "$OUT/verify.txt"
grep -E '^\[[0-9]+\]' "$OUT/verify.txt" | cut -c1-300 || true
exit "$rc"
