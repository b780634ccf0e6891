#!/usr/bin/env bash
# Issue 35, "auto never loses", for vc and clique on the GPU machine: the
# process wall time of `--engine cpu`, `--engine hybrid` and auto (the
# default, no --engine) on each instance, AUTO_RUNS (2) runs each, one
# process per run as users run it (device start-up included), with the
# engine auto chose and why (from --json). A row passes when auto's best
# wall time is at most the better of cpu's and hybrid's best × 1.05 + 10 ms.
# Every run is --verify'd; proven sizes must agree across engines.
#
#   scripts/gpu/auto-vc-clique.sh --copy-data      (here) copy the default
#                                                   instances into .dev/data
#   scripts/gpu/auto-vc-clique.sh [DATA] [vc:FILE ...] [clique:FILE ...] [cliquec:FILE ...]
#
# DATA (default .dev/data, as the other scripts lay it out) holds
# vc/yamout2022, vc/pace2019 and vc/bhoslib; without FILE arguments the
# default instances found there are run: vc on the dense Yamout cop_hat
# graphs (every cop_hat*.txt there, e.g. a 1000-vertex one if present), four
# sparse PACE kernels and frb30-15-1; clique --complement (p_hat, frb) on
# cop_hat300-3, cop_hat500-2, cop_hat500-3 and frb30-15-1. vc:FILE and
# clique:FILE name instances instead (cliquec:FILE: clique --complement).
#
# Needs .dev/arbor (scripts/build-dev.sh); no Go, no bc (awk does the
# arithmetic). AUTO_TIMEOUT (60s) caps each run, AUTO_THREADS (all cores)
# sets --threads, AUTO_BACKEND (unset: the CLI's default, CUDA there) is
# passed to hybrid and auto. About 5 minutes with the defaults.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
SRC=../shared/data
runs=${AUTO_RUNS:-2}
cap=${AUTO_TIMEOUT:-60s}
VC_DENSE="cop_hat300-3 cop_hat500-1 cop_hat500-2 cop_hat500-3"
VC_PACE="005 019 035 111"
CLIQUE_PHAT="cop_hat300-3 cop_hat500-2 cop_hat500-3"
if [ "${1:-}" = --copy-data ]; then
	mkdir -p .dev/data/vc/yamout2022 .dev/data/vc/pace2019 .dev/data/vc/bhoslib
	for x in $VC_DENSE; do cp "$SRC/vc/yamout2022/$x.txt" .dev/data/vc/yamout2022/; done
	for x in $VC_PACE; do cp "$SRC/vc/pace2019/vc-exact_$x.gr" .dev/data/vc/pace2019/; done
	cp "$SRC/vc/bhoslib/frb30-15-1.mis" .dev/data/vc/bhoslib/
	du -sh .dev/data/vc
	exit 0
fi
DATA=.dev/data
if [ $# -gt 0 ] && [ -d "$1" ]; then
	DATA=$1
	shift
fi
[ -x "$ARBOR" ] || { echo "auto-vc-clique.sh: $ARBOR not found (build it with scripts/build-dev.sh)" >&2; exit 1; }

# The instances: "cmd|file|extra flags".
jobs=()
if [ $# -gt 0 ]; then
	for a in "$@"; do
		case $a in
		vc:*) jobs+=("vc|${a#vc:}|") ;;
		clique:*) jobs+=("clique|${a#clique:}|") ;;
		cliquec:*) jobs+=("clique|${a#cliquec:}|--complement") ;;
		*) echo "auto-vc-clique.sh: $a: want vc:FILE, clique:FILE or cliquec:FILE" >&2; exit 2 ;;
		esac
	done
else
	Y=$DATA/vc/yamout2022
	for f in "$Y"/cop_hat*.txt; do [ -f "$f" ] && jobs+=("vc|$f|"); done
	for x in $VC_PACE; do jobs+=("vc|$DATA/vc/pace2019/vc-exact_$x.gr|"); done
	jobs+=("vc|$DATA/vc/bhoslib/frb30-15-1.mis|")
	for x in $CLIQUE_PHAT; do jobs+=("clique|$Y/$x.txt|--complement"); done
	jobs+=("clique|$DATA/vc/bhoslib/frb30-15-1.mis|--complement")
fi

threads=()
[ -n "${AUTO_THREADS:-}" ] && threads=(--threads "$AUTO_THREADS")
backend=()
[ -n "${AUTO_BACKEND:-}" ] && backend=(--backend "$AUTO_BACKEND")
echo "auto-vc-clique.sh: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $runs runs each, $cap per run"
"$ARBOR" devices 2>&1 | head -n 8
echo

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2- | tr -d '"'; }
now() { date +%s.%N; }
fail=0
rows=()
whys=()
for j in "${jobs[@]}"; do
	IFS='|' read -r cmd f extra <<<"$j"
	name="$cmd $(basename "$f")${extra:+ $extra}"
	if [ ! -f "$f" ]; then
		echo "$name: missing" >&2
		rows+=("$name|missing|-|-|-|-")
		fail=1
		continue
	fi
	declare -A best=() engine=() size=()
	row="" why=""
	for e in cpu hybrid auto; do
		args=("$cmd" "$f" --json --verify --timeout "$cap" "${threads[@]}")
		[ -n "$extra" ] && args+=("$extra")
		case $e in
		cpu) args+=(--engine cpu) ;;
		hybrid) args+=(--engine hybrid "${backend[@]}") ;;
		auto) args+=("${backend[@]}") ;;
		esac
		walls=""
		for ((r = 1; r <= runs; r++)); do
			t0=$(now)
			out=$("$ARBOR" "${args[@]}" 2>/tmp/auto-vc-clique.err)
			rc=$?
			t1=$(now)
			wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
			s=$(field size <<<"$out")
			p=$(field proven <<<"$out")
			en=$(field engine <<<"$out")
			if [ -z "$s" ] || [ $rc -ne 0 ]; then
				echo "$name $e run $r: exit $rc: $(tail -n 2 /tmp/auto-vc-clique.err)" >&2
				fail=1
				wall=err
			elif [ "$p" = true ]; then
				if [ -n "${size[proven]:-}" ] && [ "${size[proven]}" != "$s" ]; then
					echo "$name $e run $r: proven size $s, another engine proved ${size[proven]}" >&2
					fail=1
				fi
				size[proven]=$s
			else
				wall="$wall*" # not proven within the cap
			fi
			echo "$name $e run $r: ${wall}s wall, solver $(field seconds <<<"$out")s, size $s proven $p engine $en" >&2
			walls+="${walls:+, }$wall"
			[ "$e" = auto ] && engine[auto]=$en && why=$(sed -n 's/.*"why":"\([^"]*\)".*/\1/p' <<<"$out")
			if [ "$wall" != err ]; then
				w=${wall%\*}
				best[$e]=$(awk -v a="${best[$e]:-}" -v b="$w" 'BEGIN { if (a == "" || b < a) print b; else print a }')
			fi
		done
		row+="|$walls"
	done
	verdict=$(awk -v c="${best[cpu]:-}" -v h="${best[hybrid]:-}" -v a="${best[auto]:-}" 'BEGIN {
		if (a == "" || (c == "" && h == "")) { print "?"; exit }
		m = c; if (m == "" || (h != "" && h < m)) m = h
		lim = m * 1.05 + 0.010
		printf "%s (%.2f× best)", (a <= lim ? "ok" : "LOSES"), a / m }')
	[[ $verdict == LOSES* ]] && fail=1
	rows+=("$name$row|${engine[auto]:-?}|$verdict")
	whys+=("$name: ${why:-}")
	unset best engine size
done

echo
echo "Process wall seconds ($runs runs each; * = not proven within $cap). auto passes when its best ≤ min(cpu, hybrid best) × 1.05 + 10 ms."
echo
echo "| instance | cpu | hybrid | auto | auto's engine | auto |"
echo "|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
echo
echo "Why auto chose its engine (last run):"
for w in "${whys[@]}"; do echo "* $w"; done
exit $fail
