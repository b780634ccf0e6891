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
	awk '
		match($0, /"engine":"[a-z]*"/) { eng = substr($0, RSTART + 10, RLENGTH - 11) }
		match($0, /"seconds":[0-9.e-]*/) { sec = substr($0, RSTART + 10, RLENGTH - 10) + 0 }
		match($0, /"nodes":[0-9]*/) { nd = substr($0, RSTART + 8, RLENGTH - 8) + 0 }
		{ c[eng]++; t[eng] += sec; n[eng] += nd }
		END { for (k in c) printf "  %s: %d rows, %.2f s in all, %.0f M nodes/s", k, c[k], t[k], n[k] / 1e6 / (t[k] > 0 ? t[k] : 1); print "" }' "$OUT/probe_$name.jsonl"
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
