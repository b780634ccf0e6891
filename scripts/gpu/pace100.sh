#!/usr/bin/env bash
# Issue 17: how many of the 100 PACE 2019 public vertex cover instances the
# CPU engine proves, on the GPU machine's cores. The issue asks for the
# count in 30 min each on 16 cores (the 2019 winner: 82); a session's device
# time allows far less, so this runs PACE_JOBS instances at once with
# PACE_THREADS threads each under PACE_TIMEOUT, which gives a lower bound
# on that count (a run proven here is proven there), and lists the rest.
# Every cover is verified and its size checked against optima.csv.
#
#   scripts/gpu/pace100.sh --pack   (here: packs the data as .dev/pace.tar.xz)
#   scripts/gpu/pace100.sh          (there: unpacks it to /tmp and runs)
# Environment: PACE_JOBS (4), PACE_THREADS (4), PACE_TIMEOUT (30s),
# PACE_ONLY (a list of instance numbers, e.g. "043 083").
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
SRC=../shared/data/vc/pace2019
if [ "${1:-}" = --pack ]; then
	mkdir -p .dev
	tar -C "$SRC/.." -cJf .dev/pace.tar.xz pace2019
	ls -la .dev/pace.tar.xz
	exit 0
fi
D=$SRC
if [ -f .dev/pace.tar.xz ]; then
	mkdir -p /tmp/pace && tar -C /tmp/pace -xJf .dev/pace.tar.xz && D=/tmp/pace/pace2019
fi
[ -f "$D/optima.csv" ] || { echo "pace100.sh: no PACE data (run --pack here first)" >&2; exit 1; }
jobs=${PACE_JOBS:-4}
threads=${PACE_THREADS:-4}
cap=${PACE_TIMEOUT:-30s}
out=$(mktemp -d)
export BIN D threads cap out
one() { # one NAME OPT
	local t0 t1 js
	t0=$(date +%s.%N)
	js=$("$BIN" vc "$D/$1.gr" --json --verify --threads "$threads" --timeout "$cap" 2>"$out/$1.err")
	t1=$(date +%s.%N)
	local size proven
	size=$(grep -o '"size": *[0-9]*' <<<"$js" | head -1 | grep -o '[0-9]*$')
	proven=$(grep -o '"proven": *[a-z]*' <<<"$js" | head -1 | grep -o '[a-z]*$')
	printf '%s %s %s %s %.2f\n' "$1" "$2" "${size:--}" "${proven:-error}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" >"$out/$1.row"
}
export -f one
list() {
	awk -F, 'NR>1 {print $1, $4}' "$D/optima.csv" | while read -r name opt; do
		if [ -n "${PACE_ONLY:-}" ] && ! grep -qw "${name#vc-exact_}" <<<"$PACE_ONLY"; then continue; fi
		echo "$name $opt"
	done
}
start=$(date +%s)
list | xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"'
echo "== $(list | wc -l) instances, $jobs at a time, $threads threads each, limit $cap, $(( $(date +%s) - start )) s in all"
printf '%-14s %8s %8s %7s %8s  %s\n' instance optimum size proven seconds check
cat "$out"/*.row | sort -k5 -n | while read -r name opt size proven secs; do
	check=ok
	if [ "$proven" = true ] && [ "$size" != "$opt" ]; then check="WRONG SIZE"; fi
	if [ "$proven" = error ]; then check="error: $(head -c 200 "$out/$name.err")"; fi
	printf '%-14s %8s %8s %7s %8s  %s\n' "$name" "$opt" "$size" "$proven" "$secs" "$check"
done
solved=$(cat "$out"/*.row | awk '$4=="true" && $3==$2' | wc -l)
wrong=$(cat "$out"/*.row | awk '$4=="true" && $3!=$2' | wc -l)
echo "== proven at the optimum: $solved; proven at a wrong size: $wrong; under 1 s: $(cat "$out"/*.row | awk '$4=="true" && $3==$2 && $5<1' | wc -l)"
rm -rf "$out"
