#!/usr/bin/env bash
# Vertex cover "no regression" rows on the GPU machine: two builds of arbor
# (A and B, e.g. main before a change and after), run alternately instance
# by instance on the Yamout-study graphs and a BHOSLIB sample, auto engine,
# all cores, --verify; each size checked against the known optimum (the
# Yamout optima.csv; BHOSLIB frbN-K: N·K − N). Prints one row per instance.
#
#   scripts/gpu/vc-noreg.sh --pack       (here) packs the data and xz-packed
#                                        builds into .dev (carry .dev)
#   scripts/gpu/vc-noreg.sh              (there) unpacks and runs
#
# Environment: NOREG_A, NOREG_B (the two binaries; default .dev/arbor-old
# and .dev/arbor-new, unpacked from .xz when only that is there),
# NOREG_TIMEOUT (8s), NOREG_THREADS (all cores), NOREG_RUNS (2).
set -uo pipefail
cd "$(dirname "$0")/../.."
BHOS="frb30-15-1 frb35-17-1 frb40-19-2 frb45-21-3 frb50-23-1 frb53-24-3"
if [ "${1:-}" = --pack ]; then
	src=../shared/data/vc
	tmp=$(mktemp -d)
	mkdir -p "$tmp/vc/bhoslib" .dev
	cp -r "$src/yamout2022" "$src/pace2019" "$tmp/vc/"
	for f in $BHOS; do cp "$src/bhoslib/$f.mis" "$tmp/vc/bhoslib/"; done
	tar -C "$tmp" -cJf .dev/vcdata.tar.xz vc
	rm -rf "$tmp"
	ls -la .dev
	exit 0
fi
for b in .dev/arbor-old .dev/arbor-new .dev/arbor; do
	[ -x "$b" ] || [ ! -f "$b.xz" ] || { xz -dk "$b.xz" && chmod +x "$b"; }
done
A=${NOREG_A:-.dev/arbor-old}
B=${NOREG_B:-.dev/arbor-new}
D=/tmp/vcdata
if [ -f .dev/vcdata.tar.xz ] && [ ! -d $D/vc ]; then
	mkdir -p $D && tar -C $D -xJf .dev/vcdata.tar.xz
fi
[ -d $D/vc ] || { echo "vc-noreg.sh: no data (run --pack here first)" >&2; exit 1; }
cap=${NOREG_TIMEOUT:-8s}
threads=${NOREG_THREADS:-$(nproc)}
runs=${NOREG_RUNS:-2}
field() { grep -o "\"$1\": *[^,}]*" | head -1 | cut -d: -f2- | tr -d ' "'; }
one() { # one BIN FILE OPT → "size proven seconds check"
	local js size proven secs check
	js=$("$1" vc "$2" --json --verify --threads "$threads" --timeout "$cap" 2>/dev/null)
	size=$(field size <<<"$js")
	proven=$(field proven <<<"$js")
	secs=$(field seconds <<<"$js")
	check=ok
	[ -z "$size" ] && check=error
	[ "$proven" = true ] && [ "$size" != "$3" ] && check=WRONG
	printf '%s %s %.3f %s' "${size:--}" "${proven:--}" "${secs:-0}" "$check"
}
echo "vc-noreg.sh: A=$A ($("$A" version 2>/dev/null | head -1)) B=$B ($("$B" version 2>/dev/null | head -1)); $threads threads, $cap, $runs runs"
list=()
while IFS=, read -r f opt; do
	[ "$f" = file ] && continue
	list+=("$D/vc/yamout2022/$f|$opt")
done <$D/vc/yamout2022/optima.csv
for f in $BHOS; do
	nk=${f#frb}
	nk=${nk%-*}
	n=${nk%-*}
	k=${nk#*-}
	list+=("$D/vc/bhoslib/$f.mis|$((n * k - n))")
done
printf '%-28s %6s | %-32s | %-32s\n' instance opt "A: size proven s" "B: size proven s"
for j in "${list[@]}"; do
	IFS='|' read -r f opt <<<"$j"
	ra="" rb=""
	for r in $(seq "$runs"); do
		ra+="$(one "$A" "$f" "$opt"); "
		rb+="$(one "$B" "$f" "$opt"); "
	done
	printf '%-28s %6s | %-32s | %-32s\n' "$(basename "$f")" "$opt" "$ra" "$rb"
done
