#!/usr/bin/env bash
# BHOSLIB vertex cover on the GPU machine's CPU cores (all of them): every
# instance of the given families, each capped at the given time; prints a
# table last: instance, optimum, found, proven, seconds.
#
#   scripts/gpu/bhoslib.sh 60s 53-24 56-25      (default: 60s and every family)
#
# Data: .dev/data/vc/bhoslib/frb*.mis.gz (gzip the shared .mis files: the
# device tool carries at most 64 MiB and the 40 files are 34 MB as text).
# ARBOR_BIN picks the CLI (default .dev/arbor), e.g. a build of an older
# commit for the before/after table.
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-.dev/data}/vc/bhoslib
cap=${1:-60s}
shift || true
fams=("$@")
[ ${#fams[@]} -gt 0 ] || fams=(30-15 35-17 40-19 45-21 50-23 53-24 56-25 59-26)
[ -x "$BIN" ] || { echo "bhoslib.sh: $BIN not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bhoslib.sh: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), cap $cap"
rows=()
for fam in "${fams[@]}"; do
	N=${fam%-*} K=${fam#*-}
	for i in 1 2 3 4 5; do
		name=frb$fam-$i.mis
		if [ -f "$DATA/$name.gz" ]; then
			gunzip -c "$DATA/$name.gz" >"$tmp/$name"
		elif [ -f "$DATA/$name" ]; then
			cp "$DATA/$name" "$tmp/$name"
		else
			rows+=("$name|$((N * K - N))|missing|-|-")
			continue
		fi
		out=$("$BIN" vc "$tmp/$name" --json --verify --timeout "$cap" 2>&1)
		size=$(grep -o '"size":-\?[0-9]*' <<<"$out" | cut -d: -f2)
		proven=$(grep -o '"proven":[a-z]*' <<<"$out" | cut -d: -f2)
		secs=$(grep -o '"seconds":[0-9.e+-]*' <<<"$out" | cut -d: -f2)
		[ -n "$size" ] || { size=error; echo "$name: $out" >&2; }
		rows+=("$name|$((N * K - N))|$size|$proven|$(printf '%.2f' "${secs:-0}")")
		echo "$name opt $((N * K - N)) found $size proven $proven ${secs}s" >&2
		rm -f "$tmp/$name"
	done
done
echo
printf '%-16s %8s %8s %7s %8s\n' instance optimum found proven seconds
for r in "${rows[@]}"; do
	IFS='|' read -r a b c d e <<<"$r"
	printf '%-16s %8s %8s %7s %8s\n' "$a" "$b" "$c" "$d" "$e"
done
