#!/usr/bin/env bash
# The large sparse PACE misses with more time or threads than the issue's
# protocol gives: how far their covers are from the optimum, to tell a
# search that needs more steps from one that is stuck. Runs every
# "NUMBER:THREADS:TIMEOUT" job at once (their threads should sum to at
# most the cores), `arbor vc --json --verify`, and prints size − optimum.
#
#   scripts/gpu/vc-large.sh 161:4:16s 161:4:32s 183:4:16s 183:4:32s
#
# Data: .dev/pace.tar.xz (scripts/gpu/pace100.sh --pack); ARBOR_BIN
# (default .dev/arbor-new, then .dev/arbor).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor-new}
[ -x "$BIN" ] || [ ! -f "$BIN.xz" ] || { xz -dk "$BIN.xz" && chmod +x "$BIN"; }
[ -x "$BIN" ] || BIN=.dev/arbor
D=/tmp/pace/pace2019
[ -f $D/optima.csv ] || { mkdir -p /tmp/pace && tar -C /tmp/pace -xJf .dev/pace.tar.xz; }
out=$(mktemp -d)
for j in "$@"; do
	IFS=: read -r num th cap <<<"$j"
	("$BIN" vc "$D/vc-exact_$num.gr" --json --verify --threads "$th" --timeout "$cap" >"$out/$num-$th-$cap.json" 2>&1) &
done
wait
printf '%-8s %7s %7s %9s %9s %8s %8s %s\n' instance threads limit optimum size above proven seconds
for j in "$@"; do
	IFS=: read -r num th cap <<<"$j"
	f=$out/$num-$th-$cap.json
	opt=$(awk -F, -v n="vc-exact_$num" '$1==n {print $4}' $D/optima.csv)
	size=$(grep -o '"size":[0-9]*' "$f" | head -1 | cut -d: -f2)
	proven=$(grep -o '"proven":[a-z]*' "$f" | head -1 | cut -d: -f2)
	secs=$(grep -o '"seconds":[0-9.]*' "$f" | head -1 | cut -d: -f2)
	printf '%-8s %7s %7s %9s %9s %8s %8s %s\n' "$num" "$th" "$cap" "$opt" "${size:--}" "$(( ${size:-0} - opt ))" "${proven:--}" "${secs:--}"
done
rm -rf "$out"
