#!/usr/bin/env bash
# The three device search kernels (McSplit, clique, vertex cover) after a
# change to the shared device search-tree layer: `arbor verify` of their
# epoch kernels on every device (node counts equal to the Go twins'), then
# the gpu engine of two builds side by side, alternating, on a few inputs
# each: nodes (which must be equal) and seconds.
#
#   scripts/gpu/devsearch-ab.sh OLD NEW DIR
#
# OLD and NEW are arbor binaries; DIR holds pairs.txt (MIVIA pairs: G H
# size …, one a line, the files beside it), vc-exact_*.gr and cop_hat*.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
old=${1:?old arbor} new=${2:?new arbor} dir=${3:?data dir}
limit=${AB_TIMEOUT:-60s}
"$new" verify --kernel mcsplit_epoch,clique_epoch,vc_epoch,kcount_epoch 2>&1 | tail -25
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
row() { # label bin args…
	local label=$1 bin=$2
	shift 2
	out=$("$bin" "$@" --engine gpu --backend cuda --json --verify --timeout "$limit" 2>/dev/null)
	printf '%-26s %-4s %6s %12s %8s %6s\n' "$label" "$(basename "$bin" | sed 's/arbor-//;s/arbor/new/')" \
		"$(field size <<<"$out")" "$(field nodes <<<"$out")" "$(field seconds <<<"$out")" "$(field proven <<<"$out")"
}
printf '%-26s %-4s %6s %12s %8s %6s\n' input bin size nodes seconds proven
for round in 1 2; do
	while read -r g h _; do
		for b in "$old" "$new"; do row "mcs ${g%.*}" "$b" mcs "$dir/$g" "$dir/$h"; done
	done <"$dir/pairs.txt"
	for f in "$dir"/vc-exact_*.gr; do
		for b in "$old" "$new"; do row "vc $(basename "$f")" "$b" vc "$f"; done
	done
	for f in "$dir"/cop_hat*.txt; do
		for b in "$old" "$new"; do row "clique $(basename "$f")" "$b" clique "$f" --complement; done
	done
done
