#!/usr/bin/env bash
# McSplit's device engine against the 16-thread CPU engine on the GPU
# machine, over a spread of the medium MIVIA pairs (5–60 s for the original
# McSplit in expected.csv; every MCS_STRIDE-th one, 21 pairs by default).
# Needs .dev/arbor (scripts/build-dev.sh) and the pairs in .dev/data/mcs/mivia
# (scripts/gpu/mcsdev.sh --copy-data copies them there, on this machine).
# Prints a table per pair: size (checked against expected.csv), nodes,
# seconds, nodes/s for each engine, the device's epochs and tail, and the
# speedup of the device over the CPU engine; then the sums.
# MCS_ENGINES="gpu:cuda cpu:16" picks the runs (engine:backend or cpu:threads).
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
SRC=../shared/data/mcs/mivia
D=.dev/data/mcs/mivia
[ -f "$D/expected.csv" ] || D=$SRC
stride=${MCS_STRIDE:-8}
limit=${MCS_TIMEOUT:-60s}
pairs() { awk -F, -v s="$stride" 'NR>1 && $7=="yes" && $6>=5 && $6<=60 { if (i++ % s == 0) print $1, $2, $4, $5, $6 }' "$1/expected.csv"; }
if [ "${1:-}" = --copy-data ]; then
	mkdir -p .dev/data/mcs/mivia
	cp "$SRC/expected.csv" .dev/data/mcs/mivia/
	pairs "$SRC" | while read -r g h _; do cp "$SRC/$g" "$SRC/$h" .dev/data/mcs/mivia/; done
	# the small pairs the device tests use
	awk -F, 'NR>1 && $7=="yes" && $6>0.005 && $6<0.02 {print $1; print $2}' "$SRC/expected.csv" | head -40 |
		while read -r f; do cp "$SRC/$f" .dev/data/mcs/mivia/; done
	ls .dev/data/mcs/mivia | wc -l
	exit 0
fi
read -r -a engines <<<"${MCS_ENGINES:-gpu:cuda cpu:16}"
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
printf '%-22s %4s %-10s %5s %12s %8s %9s %6s %7s  %s\n' pair orig engine size nodes seconds Mnodes/s epochs tail check
fail=0
declare -A sum
while read -r g h size nodes secs; do
	for e in "${engines[@]}"; do
		kind=${e%%:*}
		arg=${e##*:}
		if [ "$kind" = cpu ]; then
			opt=(--engine cpu --threads "$arg")
		else
			opt=(--engine "$kind" --backend "$arg")
		fi
		out=$("$ARBOR" mcs "$D/$g" "$D/$h" "${opt[@]}" --timeout "$limit" --verify --json 2>/dev/null)
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "${g%.*} $e: exit $rc"
			fail=1
			continue
		fi
		s=$(field size <<<"$out")
		n=$(field nodes <<<"$out")
		t=$(field seconds <<<"$out")
		p=$(field proven <<<"$out")
		ep=$(field epochs <<<"$out")
		tl=$(field tail_seconds <<<"$out")
		check=ok
		if [ "$p" != true ]; then check=unproven; elif [ "$s" != "$size" ]; then check="SIZE≠$size"; fail=1; fi
		sum[$e]=$(awk -v a="${sum[$e]:-0}" -v b="$t" 'BEGIN{print a+b}')
		printf '%-22s %4.0f %-10s %5s %12s %8.3f %9.1f %6s %7s  %s\n' "${g%.*}" "$secs" "$e" "$s" "$n" "$t" \
			"$(awk -v n="$n" -v t="$t" 'BEGIN{print (t>0)? n/t/1e6 : 0}')" "${ep:--}" "${tl:--}" "$check"
	done
done < <(pairs "$D")
echo "sums:"
for e in "${engines[@]}"; do printf '  %-10s %8.2f s\n' "$e" "${sum[$e]:-0}"; done
exit $fail
