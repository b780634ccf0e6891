#!/usr/bin/env bash
# Issue #33's rule of the move, checked on the GPU machine in one call:
# `arbor verify` on CUDA, NVIDIA OpenCL, PoCL (when installed) and the CPU
# backend, the fixed-goal node-count tests of the three search engines and
# of the search layer, and fixed-goal CLI runs whose node counts must be
# equal on every backend and to the counts of the build before the move
# (f6d6273, measured on the CPU twin and PoCL: the "want" column). A short
# table comes last.
#
# Here (Go is not on the GPU machine):
#   scripts/gpu/restructure-check.sh --prepare
# builds .dev/arbor and the test binaries (scripts/build-dev.sh) and copies
# the data subset the runs read into .dev/data (about 50 MiB in all: carry
# .dev, nothing else in it). Then, on the GPU machine:
#   scripts/gpu/restructure-check.sh
# RC_BACKENDS (default "cuda opencl cpu") picks the backends, RC_BINS the
# CLI builds compared (default .dev/arbor); RC_QUICK=1 skips the test
# binaries, RC_NOVERIFY=1 the verify runs.
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=../shared/data

if [ "${1:-}" = --prepare ]; then
	scripts/build-dev.sh ./algorithms/mcs ./algorithms/clique ./algorithms/vertexcover ./device/search || exit 1
	mkdir -p .dev/data/mcs/mivia .dev/data/vc/yamout2022 .dev/data/clique
	cp "$SRC/mcs/mivia/expected.csv" .dev/data/mcs/mivia/
	awk -F, 'NR>1 && $7=="yes" && $6>0.005 && $6<0.05 {print $1; print $2}' "$SRC/mcs/mivia/expected.csv" |
		while read -r f; do cp "$SRC/mcs/mivia/$f" .dev/data/mcs/mivia/; done
	cp "$SRC/vc/yamout2022/optima.csv" "$SRC/vc/yamout2022"/cop_hat300*.txt "$SRC/vc/yamout2022/cop_hat500-2.txt" .dev/data/vc/yamout2022/
	cp "$SRC/clique/optima.csv" .dev/data/clique/
	du -sh .dev
	exit 0
fi

D=.dev/data
[ -d "$D" ] || D=$SRC
read -r -a backends <<<"${RC_BACKENDS:-cuda opencl cpu}"
bins=(.dev/arbor)
[ -n "${RC_BINS:-}" ] && read -r -a bins <<<"$RC_BINS"
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
declare -a table
row() { table+=("$(printf '%-44s %-26s %s' "$1" "$2" "$3")"); }

# 1. arbor verify on every device of every backend (PoCL is an OpenCL
# platform beside NVIDIA's: its devices are verified by name).
for b in "${backends[@]}"; do
	[ -n "${RC_NOVERIFY:-}" ] && break
	devs=$(.dev/arbor devices 2>/dev/null | awk -v b="$b" '$1 ~ "^"b":" {print $1}' | cut -d: -f2 | tr -d ' ')
	[ -n "$devs" ] || devs=0
	for d in $devs; do
		out=$(.dev/arbor verify --backend "$b" --device "$d" 2>&1)
		rc=$?
		echo "$out" | tail -8
		row "verify $b:$d" "$(echo "$out" | grep -c ' ok ' ) checks ok" "$([ $rc = 0 ] && echo ok || echo FAIL)"
	done
done

# 2. The fixed-goal tests (each compares the device's nodes with the CPU
# engines', on every backend present).
if [ -z "${RC_QUICK:-}" ]; then
	for t in "algorithms_mcs TestDeviceFixedGoal algorithms/mcs" \
		"algorithms_clique TestDeviceFixedIncumbent algorithms/clique" \
		"algorithms_vertexcover TestDeviceDataNodes|TestDeviceMany algorithms/vertexcover" \
		"device_search TestRunManyCountsEveryNode device/search"; do
		read -r bin run dir <<<"$t"
		if (cd "$dir" && "$OLDPWD/.dev/$bin.test" -test.run "^($run)\$" -test.v -test.timeout 20m) >".dev/rc-$bin.log" 2>&1; then
			row "test $run" "$dir" ok
		else
			tail -30 ".dev/rc-$bin.log"
			row "test $run" "$dir" FAIL
		fi
	done
fi

# 3. Fixed-goal CLI runs: the same nodes on every backend and build, and
# the pre-move build's count (label|want|arguments).
M=$D/mcs/mivia
V=$D/vc/yamout2022
runs=(
	"mcs-r005-s25-01/goal22|10020|mcs $M/mcs10_r005_s25.A01 $M/mcs10_r005_s25.B01 --goal 22"
	"mcs-r005-s25-01/goal21|157313|mcs $M/mcs10_r005_s25.A01 $M/mcs10_r005_s25.B01 --goal 21"
	"mcs-r01-s20-00/goal15|84093|mcs $M/mcs10_r01_s20.A00 $M/mcs10_r01_s20.B00 --goal 15"
	"clique-hat300-3c/goal37|375269|clique $V/cop_hat300-3.txt --complement --goal 37"
	"clique-hat300-2c/goal26|5274|clique $V/cop_hat300-2.txt --complement --goal 26"
	"vc-hat300-2/k274|75463|vc $V/cop_hat300-2.txt -k 274"
	"vc-hat300_1/k291|13817|vc $V/cop_hat300_1.txt -k 291"
)
bad=0
for r in "${runs[@]}"; do
	label=${r%%|*}
	rest=${r#*|}
	seen=${rest%%|*}
	read -r -a args <<<"${rest#*|}"
	cells=""
	for bin in "${bins[@]}"; do
		for b in "${backends[@]}"; do
			n=$("$bin" "${args[@]}" --engine gpu --backend "$b" --workers 5 --json 2>/dev/null | field nodes)
			[ -n "$n" ] || n=-
			cells+="$(basename "$bin" | sed 's/arbor-//;s/arbor/new/')/$b=$n "
			if [ "$n" != - ]; then
				[ -z "$seen" ] && seen=$n
				[ "$n" = "$seen" ] || bad=1
			fi
		done
	done
	row "nodes $label" "want $seen" "$cells"
done

echo
printf '%-44s %-26s %s\n' check result detail
for l in "${table[@]}"; do echo "$l"; done
[ $bad = 0 ] && echo "node counts: equal to the pre-move build's on every backend" || echo "node counts: DIFFER (see above)"
