#!/usr/bin/env bash
# One thread, default tree (--prune rr), on the ten medium MIVIA pairs of
# docs/results/mcs.md: the per-node work of branch mcsspeed against the
# build before it, and RRSplit where its program is at hand. Every run
# alone on the machine is not needed: A and B are interleaved, each pair
# REPS (3) times, P (8) processes at once; user CPU seconds
# (/usr/bin/time) and node counts, every arbor answer --verify'd.
#
#   scripts/gpu/mcsspeed.sh DATA OLD NEW   DATA: a MIVIA folder; OLD, NEW:
#                                          arbor binaries (main before the
#                                          merge, and after)
#   RRSPLIT_CMD='/path/RRSplit {A} {B}'    also time RRSplit ({A}, {B}: the
#                                          pair's files), as run for issue 44
#
# Output: one line a run (rep pair engine user-s nodes size), then the
# geo-mean of each engine's median per pair and the ratios.
set -uo pipefail
data=${1:?DATA} old=${2:?OLD} new=${3:?NEW}
pairs="mcs10_r005_s35.A00 mcs90_b09m_s40.A02 mcs50_m4Dr6_s35.A01 mcs70_m2Dr6_s35.A01 mcs50_r01_s30.A01
mcs90_b06m_s90.A02 mcs30_b03_s40.A02 mcs90_r01_s60.A02 mcs10_r02_s30.A00 mcs50_m2D_s40.A00"
one() { # rep pair engine
	local a=$data/$2 b=$data/${2/.A/.B} t out
	if [ "$3" = rrsplit ]; then
		local cmd=${RRSPLIT_CMD//\{A\}/$a}
		cmd=${cmd//\{B\}/$b}
		local log
		log=$(mktemp)
		t=$({ /usr/bin/time -f %U bash -c "$cmd" >"$log"; } 2>&1 | tail -1)
		# mcsp prints "#2: size nodes ms" last.
		echo "$1 $2 rrsplit $t $(awk '/^#2:/ {print $3, $2}' "$log")"
		rm -f "$log"
		return
	fi
	bin=$old
	[ "$3" = new ] && bin=$new
	out=$({ /usr/bin/time -f %U "$bin" mcs "$a" "$b" --engine cpu --threads 1 --verify --json; } 2>&1)
	echo "$1 $2 $3 $(tail -1 <<<"$out") $(grep -o '"nodes":[0-9]*' <<<"$out" | cut -d: -f2) $(grep -o '"size":[0-9]*' <<<"$out" | cut -d: -f2)"
}
export -f one
export data old new RRSPLIT_CMD
engines="old new"
[ -n "${RRSPLIT_CMD:-}" ] && engines="$engines rrsplit"
for rep in $(seq "${REPS:-3}"); do
	for p in $pairs; do for e in $engines; do echo "$rep $p $e"; done; done
done | xargs -P "${P:-8}" -L 1 bash -c 'one $0 $1 $2' | tee /dev/stderr | python3 -c '
import sys, math, statistics, collections
t = collections.defaultdict(list)
for line in sys.stdin:
    rep, pair, eng, sec = line.split()[:4]
    t[(pair, eng)].append(float(sec))
engs = sorted({e for _, e in t})
pairs = sorted({p for p, _ in t})
g = {e: math.exp(sum(math.log(statistics.median(t[(p, e)])) for p in pairs) / len(pairs)) for e in engs}
for e in engs:
    print("geo-mean of medians %-8s %.3f s" % (e, g[e]))
if "old" in g and "new" in g:
    print("new/old %.3f" % (g["new"] / g["old"]))
if "rrsplit" in g:
    for e in ("old", "new"):
        print("%s/rrsplit %.3f" % (e, g[e] / g["rrsplit"]))
'
