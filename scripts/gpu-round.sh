#!/usr/bin/env bash
# One round on the GPU machine: run from the repo root there, after
# scripts/build-dev.sh ran here and .dev was carried. Runs every
# scripts/gpu/*.sh (or those named as arguments) and collects their tables.
# Each step script writes its table to stdout; its whole output goes to
# $OUT/round-<step>.log (OUT is set by the device tool; /tmp/arbor-out
# otherwise), beside whatever logs the step writes there itself.
#
# One device call may run for 10 minutes at most, so the round keeps to a
# budget (ARBOR_ROUND_BUDGET seconds, default 560): each step gets what is
# left of it (at most ARBOR_STEP_TIMEOUT, default 300), a step that overruns
# is stopped (rc=124), and the summary is printed in any case.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"
budget=${ARBOR_ROUND_BUDGET:-560}
step_max=${ARBOR_STEP_TIMEOUT:-300}
round_start=$(date +%s)
steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then steps=(scripts/gpu/*.sh); fi
summary=""
for s in "${steps[@]}"; do
	name=$(basename "$s" .sh)
	left=$((budget - ($(date +%s) - round_start)))
	if [ "$left" -lt 15 ]; then
		summary+=$(printf '%-14s skipped: round budget of %ds spent' "$name" "$budget")$'\n'
		continue
	fi
	limit=$((left < step_max ? left : step_max))
	start=$(date +%s)
	timeout --kill-after=5 "$limit" bash "$s" >"$OUT/round-$name.log" 2>&1
	rc=$?
	summary+=$(printf '%-14s rc=%-3d %4ds (limit %ds)' "$name" "$rc" "$(($(date +%s) - start))" "$limit")$'\n'
	echo "=== $name (rc=$rc)"
	tail -n 40 "$OUT/round-$name.log"
done
echo "=== summary"
printf '%s' "$summary"
# The device tool brings back at most 8 files from $OUT: past 7, pack the
# logs into one archive so that none is lost.
if [ "$(find "$OUT" -type f | wc -l)" -gt 7 ]; then
	tar -czf /tmp/round-logs.tar.gz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/round-logs.tar.gz "$OUT/"
	echo "logs: $OUT/round-logs.tar.gz"
fi
