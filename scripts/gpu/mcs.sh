#!/usr/bin/env bash
# McSplit on the GPU machine's CPU cores: the sequential engine (its node
# count must equal the original program's, from expected.csv) and the
# parallel one on 4, 8 and 16 threads, on five medium MIVIA pairs.
# Needs .dev/arbor (scripts/build-dev.sh) and these files in
# .dev/data/mcs/mivia/: {mcs90_b06_s70,mcs50_m4D_s40,mcs90_b03_s80,
# mcs70_m3Dr6_s35}.{A,B}0x as listed below and mcs90_m4D_s90.{A,B}02.
# Prints a table: pair, threads, size, nodes, seconds, nodes/s, speedup over
# one thread, and whether the sequential node count matches. About 2 minutes.
# MCS_THREADS="1 2" changes the thread counts.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
D=.dev/data/mcs/mivia
[ -d "$D" ] || D=../shared/data/mcs/mivia
# pair (g file, without .A/.B), expected size, expected nodes (original McSplit)
pairs=(
	"mcs90_b06_s70:00 64 64906402"
	"mcs50_m4D_s40:00 31 67688321"
	"mcs90_b03_s80:01 74 54260430"
	"mcs70_m3Dr6_s35:02 27 61164478"
	"mcs90_m4D_s90:02 83 204628031"
)
read -r -a threads <<<"${MCS_THREADS:-1 4 8 16}"
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2; }
echo "cores: $(nproc)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '%-24s %7s %5s %12s %9s %12s %8s  %s\n' pair threads size nodes seconds nodes/s speedup check
fail=0
for p in "${pairs[@]}"; do
	read -r name size nodes <<<"$p"
	base=${name%%:*}
	k=${name##*:}
	g=$D/$base.A$k
	h=$D/$base.B$k
	if [ ! -f "$g" ] || [ ! -f "$h" ]; then
		echo "missing $g or $h"
		fail=1
		continue
	fi
	t1=""
	for t in "${threads[@]}"; do
		out=$("$ARBOR" mcs "$g" "$h" --threads "$t" --timeout 60s --verify --json 2>&1)
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "$base.$k threads $t: exit $rc: $out"
			fail=1
			continue
		fi
		s=$(field size <<<"$out")
		n=$(field nodes <<<"$out")
		secs=$(field seconds <<<"$out")
		proven=$(field proven <<<"$out")
		[ "$t" = 1 ] && t1=$secs
		speed=$(awk -v a="$t1" -v b="$secs" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "-" }')
		rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { if (s > 0) printf "%.2fM", n / s / 1e6; else print "-" }')
		check="ok"
		if [ "$proven" != true ]; then
			check="unproven"
		elif [ "$s" != "$size" ]; then
			check="SIZE≠$size"
			fail=1
		elif [ "$t" = 1 ] && [ "$n" != "$nodes" ]; then
			check="NODES≠$nodes"
			fail=1
		fi
		printf '%-24s %7s %5s %12s %9.3f %12s %8s  %s\n' "$base.$k" "$t" "$s" "$n" "$secs" "$rate" "$speed" "$check"
	done
done
exit $fail
