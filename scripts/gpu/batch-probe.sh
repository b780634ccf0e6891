#!/usr/bin/env bash
# Where a device batch's time goes: the 100 hardest pairs of the < 1 s set
# (top100.csv, made here from a CPU batch's per-row seconds), on the CPU
# slots alone and with the device taking most of them; per-row seconds and
# epochs of the device rows.
set -uo pipefail
cd "$(dirname "$0")/../.."
A=${ARBOR:-.dev/arbor}
L=.dev/data/mcs/mivia/top100.csv
OUT=${OUT:-/tmp}
run() {
	name=$1; shift
	s=$(date +%s.%N)
	"$A" mcs --batch "$L" --json "$@" >"$OUT/probe_$name.jsonl" 2>"$OUT/probe_$name.err"
	rc=$?
	e=$(date +%s.%N)
	awk -v n="$name" -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN{printf "%-28s wall %6.3f s rc %d", n, e-s, rc}'
	grep -o '"engine":"[a-z]*"\|"seconds":[0-9.e-]*\|"epochs":[0-9]*' "$OUT/probe_$name.jsonl" | paste -d' ' - - - 2>/dev/null | awk '
		{ split($1,a,":"); split($2,b,":"); eng=a[2]; sec=b[2]+0; c[eng]++; t[eng]+=sec; if (sec>mx[eng]) mx[eng]=sec; if (!(eng in mn) || sec<mn[eng]) mn[eng]=sec }
		END { for (k in c) printf "  %s: %d rows, mean %.3f s, min %.3f, max %.3f", k, c[k], t[k]/c[k], mn[k], mx[k]; print "" }'
}
run cpu16 --engine cpu --threads 16
run gpu-t1-s1 --engine gpu --threads 1 --device-slots 1
run gpu-t1-s4 --engine gpu --threads 1 --device-slots 4
run hybrid-t1-s1 --engine hybrid --threads 1 --device-slots 1
run auto16 --threads 16
for i in 1 2 3; do
	g=$(sed -n "${i}p" "$L" | cut -d, -f1); h=$(sed -n "${i}p" "$L" | cut -d, -f2)
	for e in cpu gpu hybrid; do
		s=$(date +%s.%N); "$A" mcs .dev/data/mcs/mivia/$g .dev/data/mcs/mivia/$h --engine $e --json > "$OUT/one.json" 2>&1; t=$(date +%s.%N)
		echo "$g $e wall $(awk -v s=$s -v t=$t 'BEGIN{printf "%.3f", t-s}') $(grep -o '"seconds":[0-9.]*\|"epochs":[0-9]*\|"nodes":[0-9]*' "$OUT/one.json" | tr '\n' ' ')"
	done
done
