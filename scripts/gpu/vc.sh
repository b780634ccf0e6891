#!/usr/bin/env bash
# Vertex cover timings on the GPU machine's CPU cores (all of them): run
# from the repository root with the CLI prebuilt as .dev/arbor and the data
# under .dev/data/vc (see FILES below). About 4 minutes at most; prints a
# table: instance, n, m, optimum, found, proven, seconds.
#
# FILES (≈ 7.4 MB):
#   .dev/data/vc/yamout2022/{cop_hat300_1,cop_hat300-2,cop_hat300-3,Power-Grid,formated_maayan-figeys,formated_maayan-vidal}.txt
#   .dev/data/vc/bhoslib/frb30-15-{1..5}.mis and frb{35-17,40-19,45-21,50-23,53-24,56-25,59-26}-1.mis
#   .dev/data/vc/pace2019/vc-exact_NNN.gr for the 28 instances with n ≤ 450:
#     005 019 031 035 037 041 043 045 047 049 051 053 055 057 059 061 063 065
#     067 069 071 073 077 081 083 091 093 111
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-.dev/data}/vc
[ -x "$BIN" ] || { echo "vc.sh: $BIN not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
echo "vc.sh: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
rows=()
run() { # file optimum timeout
	local f=$1 opt=$2 cap=$3
	if [ ! -f "$f" ]; then rows+=("$(basename "$f")|-|-|$opt|missing|-|-"); return; fi
	local out
	out=$("$BIN" vc "$f" --json --verify --timeout "$cap" 2>&1)
	local n m size proven secs
	n=$(grep -o '"vertices":[0-9]*' <<<"$out" | head -1 | cut -d: -f2)
	m=$(grep -o '"edges":[0-9]*' <<<"$out" | head -1 | cut -d: -f2)
	size=$(grep -o '"size":-\?[0-9]*' <<<"$out" | cut -d: -f2)
	proven=$(grep -o '"proven":[a-z]*' <<<"$out" | cut -d: -f2)
	secs=$(grep -o '"seconds":[0-9.e+-]*' <<<"$out" | cut -d: -f2)
	[ -n "$size" ] || { size="error"; echo "$(basename "$f"): $out" >&2; }
	rows+=("$(basename "$f")|$n|$m|$opt|$size|$proven|$(printf '%.3f' "${secs:-0}")")
	echo "$(basename "$f") opt $opt found $size proven $proven ${secs}s" >&2
}
for x in cop_hat300_1:292 cop_hat300-2:275 Power-Grid:2203 formated_maayan-figeys:316 formated_maayan-vidal:1077; do
	run "$DATA/yamout2022/${x%%:*}.txt" "${x##*:}" 10s
done
run "$DATA/yamout2022/cop_hat300-3.txt" 264 25s
for i in 1 2 3 4 5; do run "$DATA/bhoslib/frb30-15-$i.mis" 420 5s; done
# The first instance of each larger BHOSLIB family, 10 s each (the issue
# asks which families are proven within 60 s: this samples it cheaply).
for x in 35-17:560 40-19:720 45-21:900 50-23:1100 53-24:1219 56-25:1344 59-26:1475; do
	run "$DATA/bhoslib/frb${x%%:*}-1.mis" "${x##*:}" 10s
done
# PACE 2019 public instances with ≤ 450 vertices, 4 s each.
while IFS=, read -r inst n m opt; do
	[ "$inst" = instance ] && continue
	[ "$n" -le 450 ] || continue
	run "$DATA/pace2019/$inst.gr" "$opt" 4s
done < <(if [ -f "$DATA/pace2019/optima.csv" ]; then cat "$DATA/pace2019/optima.csv"; else
	for i in 005:129 019:130 031:136 035:133 037:131 041:139 043:139 045:137 047:140 049:136 051:140 053:139 055:134 057:142 \
		059:137 061:135 063:138 065:138 067:143 069:140 071:136 073:139 077:137 081:141 083:144 091:145 093:143 111:420; do
		echo "vc-exact_${i%%:*},0,0,${i##*:}"; done; fi)
echo
printf '%-28s %7s %8s %8s %8s %7s %9s\n' instance n m optimum found proven seconds
for r in "${rows[@]}"; do
	IFS='|' read -r a b c d e f g <<<"$r"
	printf '%-28s %7s %8s %8s %8s %7s %9s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"
done
