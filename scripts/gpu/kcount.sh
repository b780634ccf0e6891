#!/usr/bin/env bash
# k-clique counting on the GPU machine: the kcount_epoch conformance check on
# CUDA (count and node count equal to the Go twin's), then `arbor kcount`
# with the CPU engine on KCOUNT_THREADS (16) threads and the gpu engine on
# KCOUNT_BACKEND (cuda) over a few graphs and k, each under KCOUNT_TIMEOUT
# (60s) and --verify where the recount is quick; a table last. The counts
# of the two engines must agree (a partial count is marked partial).
#
# Needs .dev/arbor (scripts/build-dev.sh) and, under .dev/data, the files
# named below (about 3 MB): `scripts/gpu/kcount.sh --copy-data` copies them
# there from ../shared/data, on this machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
DATA=${ARBOR_DATA:-.dev/data}
SRC=../shared/data
threads=${KCOUNT_THREADS:-16}
limit=${KCOUNT_TIMEOUT:-60s}
backend=${KCOUNT_BACKEND:-cuda}
# file k [--verify]
cases=(
	"matching/suitesparse/USAir97.mtx 9 --verify"
	"matching/suitesparse/USAir97.mtx 13"
	"vc/bhoslib/frb30-15-1.mis 5 --verify"
	"vc/bhoslib/frb30-15-1.mis 7"
	"vc/yamout2022/cop_hat300_1.txt 4"
	"vc/yamout2022/cop_hat300_1.txt 6"
	"vc/yamout2022/cop_hat300-2.txt 5"
)
if [ "${1:-}" = --copy-data ]; then
	for c in "${cases[@]}"; do
		f=${c%% *}
		mkdir -p ".dev/data/$(dirname "$f")"
		cp "$SRC/$f" ".dev/data/$f"
	done
	du -sh .dev/data
	exit 0
fi
[ -x "$ARBOR" ] || { echo "kcount.sh: $ARBOR not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
echo "kcount.sh: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
fail=0
echo "== kcount_epoch conformance on $backend"
timeout 300 "$ARBOR" verify --backend "$backend" --kernel kcount_epoch || fail=1
printf '%-34s %3s  %-22s %9s  %-22s %9s %s\n' graph k "cpu count" "cpu s" "gpu count" "gpu s" ok
for c in "${cases[@]}"; do
	read -r f k extra <<<"$c"
	[ -f "$DATA/$f" ] || { echo "kcount.sh: $DATA/$f missing (--copy-data)" >&2; fail=1; continue; }
	cpu=$("$ARBOR" kcount "$DATA/$f" -k "$k" --engine cpu --threads "$threads" --timeout "$limit" --json $extra) || fail=1
	gpu=$("$ARBOR" kcount "$DATA/$f" -k "$k" --engine gpu --backend "$backend" --timeout "$limit" --json $extra) || fail=1
	field() { sed -n "s/.*\"$1\":\\([^,}]*\\).*/\\1/p" <<<"$2"; }
	cc=$(field count "$cpu"); gc=$(field count "$gpu")
	[ "$(field proven "$cpu")" = true ] || cc="$cc(partial)"
	[ "$(field proven "$gpu")" = true ] || gc="$gc(partial)"
	ok=yes
	if [ "$cc" != "$gc" ] && [[ $cc != *partial* ]] && [[ $gc != *partial* ]]; then ok=NO; fail=1; fi
	printf '%-34s %3s  %-22s %9.3f  %-22s %9.3f %s\n' "$f" "$k" "$cc" "$(field seconds "$cpu")" "$gc" "$(field seconds "$gpu")" "$ok"
done
exit $fail
