#!/usr/bin/env bash
# Issue 44 items 1 and 3 on the GPU machine: the pruned tree (--prune rr,
# the default) on the device, against the original tree (--prune none).
#
#   scripts/gpu/mcsprune.sh copy DATA DIR
#       here: copy expected.csv and the pairs the phases below use from DATA
#       (a MIVIA folder) into DIR (which travels to the GPU machine).
#   scripts/gpu/mcsprune.sh nodes DIR    CUDA's node counts with --goal
#       (optimum + 1: a proof) against the sequential CPU engine's, both
#       prune modes, on a spread of small proven pairs, on one GPU and on
#       --device all.
#   scripts/gpu/mcsprune.sh medium DIR   the hybrid (and auto) on the 24
#       medium pairs (proven, original McSplit 5–60 s, file order), --prune
#       none then rr: per pair seconds, nodes, size check; then the sums.
#   scripts/gpu/mcsprune.sh multi DIR    one GPU against --device all on the
#       frozen tree (--goal = McSplit's size + 1) of McSplit-open pairs
#       (proven=no, 40 vertices): the first that one GPU settles within
#       LIMIT (20 s) is timed on both, of the first TRIES (5); if none, the
#       node rates of one GPU and of all over 10 s.
#
# ARBOR (default: arbor beside this script's DIR) is the binary.
set -uo pipefail
mode=${1:?mode}
dir=${2:?DIR}
ARBOR=${ARBOR:-$dir/../arbor}
LIMIT=${LIMIT:-20}

small() { awk -F, 'NR>1 && $7=="yes" && $6>=0.01 && $6<=0.3 && $3<=64 { if (i++ % 9 == 0) print $1, $2, $4 }' "$1/expected.csv" | head -10; }
medium() { awk -F, 'NR>1 && $7=="yes" && $6+0>=5 && $6+0<=60 && k<24 { print $1, $2, $4; k++ }' "$1/expected.csv"; }
open40() { awk -F, 'NR>1 && $7=="no" && $3==40 { print $1, $2, $4 }' "$1/expected.csv" | head -${TRIES:-5}; }
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }

case $mode in
copy)
	src=$3
	mkdir -p "$src"
	cp "$dir/expected.csv" "$src/"
	{ small "$dir"; medium "$dir"; open40 "$dir"; } | while read -r g h _; do cp "$dir/$g" "$dir/$h" "$src/"; done
	ls "$src" | wc -l
	;;
nodes)
	printf '%-22s %5s %-5s %12s %12s %12s  %s\n' pair goal prune cpu1 cuda cuda-all check
	bad=0
	while read -r g h size; do
		goal=$((size + 1))
		for pr in none rr; do
			c=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine cpu --threads 1 --goal $goal --prune $pr --json | field nodes)
			d=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --goal $goal --prune $pr --json | field nodes)
			a=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --device all --goal $goal --prune $pr --json | field nodes)
			ok=ok
			if [ "$c" != "$d" ] || [ "$c" != "$a" ]; then ok=DIFFER; bad=1; fi
			printf '%-22s %5s %-5s %12s %12s %12s  %s\n' "${g%.*}" $goal $pr "$c" "$d" "$a" $ok
		done
	done < <(small "$dir")
	exit $bad
	;;
medium)
	declare -A sum
	printf '%-22s %-12s %5s %12s %8s  %s\n' pair run size nodes seconds check
	while read -r g h size; do
		for run in hybrid:none hybrid:rr auto:rr; do
			e=${run%%:*}
			pr=${run##*:}
			out=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine $e --prune $pr --timeout 60s --verify --json 2>/dev/null)
			s=$(field size <<<"$out")
			n=$(field nodes <<<"$out")
			t=$(field seconds <<<"$out")
			ok=ok
			[ "$s" = "$size" ] || ok="SIZE≠$size"
			sum[$run]=$(awk -v a="${sum[$run]:-0}" -v b="$t" 'BEGIN{print a+b}')
			printf '%-22s %-12s %5s %12s %8.3f  %s\n' "${g%.*}" $run "$s" "$n" "$t" "$ok"
		done
	done < <(medium "$dir")
	for run in hybrid:none hybrid:rr auto:rr; do printf 'sum %-12s %8.2f s\n' $run "${sum[$run]}"; done
	;;
multi)
	while read -r g h size; do
		goal=$((size + 1))
		out=$(timeout $((LIMIT + 5)) "$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --goal $goal --timeout ${LIMIT}s --json 2>/dev/null)
		p=$(field proven <<<"$out")
		t=$(field seconds <<<"$out")
		n=$(field nodes <<<"$out")
		echo "1 GPU  ${g%.*} goal $goal: proven $p, $t s, $n nodes"
		if [ "$p" = true ] && awk -v t="$t" 'BEGIN{exit !(t >= 3)}'; then
			out2=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --device all --goal $goal --timeout 60s --json 2>/dev/null)
			t2=$(field seconds <<<"$out2")
			n2=$(field nodes <<<"$out2")
			echo "2 GPUs ${g%.*} goal $goal: $t2 s, $n2 nodes, moved $(field moved_between_devices <<<"$out2"); speed-up $(awk -v a="$t" -v b="$t2" 'BEGIN{printf "%.2f", a/b}')"
			out3=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --goal $goal --prune none --timeout ${LIMIT}s --json 2>/dev/null)
			echo "1 GPU none ${g%.*}: proven $(field proven <<<"$out3"), $(field seconds <<<"$out3") s, $(field nodes <<<"$out3") nodes"
			exit 0
		fi
	done < <(open40 "$dir")
	# None settled: the node rates of one GPU and of all, 10 s each.
	read -r g h size < <(open40 "$dir")
	for d in 0 all; do
		out=$("$ARBOR" mcs "$dir/$g" "$dir/$h" --engine gpu --backend cuda --device $d --goal $((size + 1)) --timeout 10s --json 2>/dev/null)
		echo "device $d ${g%.*}: $(field seconds <<<"$out") s, $(field nodes <<<"$out") nodes"
	done
	;;
*)
	sed -n '2,22p' "$0"
	exit 2
	;;
esac
