#!/usr/bin/env bash
# One round on the GPU machine: run from the repo root there, after
# scripts/build-dev.sh ran here and .dev was carried. Runs every
# scripts/gpu/*.sh (or those named as arguments) and collects their tables.
# Each step script writes its table to stdout; logs go to $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"
steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then steps=(scripts/gpu/*.sh); fi
summary=""
for s in "${steps[@]}"; do
	name=$(basename "$s" .sh)
	start=$(date +%s)
	bash "$s" >"$OUT/$name.log" 2>&1
	rc=$?
	summary+=$(printf '%-14s rc=%-3d %4ds\n' "$name" "$rc" "$(( $(date +%s) - start ))")$'\n'
	echo "=== $name (rc=$rc)"
	tail -n 40 "$OUT/$name.log"
done
echo "=== summary"
printf '%s' "$summary"
