#!/usr/bin/env bash
# Issue 44 item 2 (--prune rr2) on the GPU machine, as measured for
# docs/results/mcs.md: (1) the ten medium MIVIA pairs, one thread each,
# rr and rr2, MEDIUM_P (8) processes at once, MEDIUM_REPS (1) runs; (2) the
# 32-pair McSplit-open sample (every 39th proven=no row of expected.csv,
# the first 32) with rr2, OPEN_THREADS (8) threads, OPEN_TIMEOUT (8) s,
# OPEN_P (2) pairs at a time (OPEN=0 skips them). Every run is --verify'd. Set up here:
#
#   scripts/gpu/mcsrr2.sh --copy DIR   copy arbor (build it first into
#                                       DIR/arbor), this script, the pair
#                                       lists and the 84 graph files into DIR
#   DIR/mcsrr2.sh                       (there) run; summaries last, logs in $OUT
set -euo pipefail
if [[ ${1:-} == --copy ]]; then
  dir=$2 src=${ARBOR_DATA:-../shared/data}/mcs/mivia
  mkdir -p "$dir/data"
  cp "$0" "$dir/mcsrr2.sh"
  for p in mcs10_r005_s35.A00 mcs90_b09m_s40.A02 mcs50_m4Dr6_s35.A01 mcs70_m2Dr6_s35.A01 mcs50_r01_s30.A01 \
    mcs90_b06m_s90.A02 mcs30_b03_s40.A02 mcs90_r01_s60.A02 mcs10_r02_s30.A00 mcs50_m2D_s40.A00; do
    echo "$p,${p/.A/.B}"
  done > "$dir/medium.csv"
  awk -F, 'NR>1 && $7=="no"' "$src/expected.csv" | awk -F, 'NR%39==1' | head -32 > "$dir/open32.csv"
  cut -d, -f1,2 "$dir/medium.csv" "$dir/open32.csv" | tr , '\n' | while read -r f; do cp "$src/$f" "$dir/data/"; done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp/mcsrr2}; mkdir -p "$O"
one() { # g h prune threads timeout tag
  r=$(./arbor mcs "data/$1" "data/$2" --engine cpu --prune "$3" --threads "$4" --timeout "$5" --verify --json 2>>"$O/err.log")
  echo "$6,$1,$3,$4,$5,$(echo "$r" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["size"],d["proven"],d["nodes"],round(d["seconds"],3),d.get("verified"),sep=",")')"
}
export -f one; export O
for rep in $(seq "${MEDIUM_REPS:-1}"); do
  while IFS=, read -r g h; do for pr in rr rr2; do echo "$g $h $pr"; done; done < medium.csv
done | xargs -r -P "${MEDIUM_P:-8}" -L 1 bash -c 'one $0 $1 $2 1 120 medium' > "$O/medium.csv"
cut -d, -f1,2 open32.csv | { [[ ${OPEN:-1} == 0 ]] && cat >/dev/null || cat; } | tr , ' ' |
  xargs -r -P "${OPEN_P:-2}" -L 1 bash -c "one \$0 \$1 rr2 ${OPEN_THREADS:-8} ${OPEN_TIMEOUT:-8} open" > "$O/open.csv"
python3 - "$O" <<'PY'
import sys, csv, math
O = sys.argv[1]
exp = {r[0]: int(r[3]) for r in csv.reader(open('open32.csv'))}
best = {}
for r in csv.reader(open(O + '/medium.csv')):
    if r[6] != 'True' or r[9] != 'True':
        print('NOT PROVEN/VERIFIED', r)
    k = (r[1], r[2])
    best[k] = min(best.get(k, 1e9), float(r[8]))
pairs = sorted({k[0] for k in best})
g = {e: math.exp(sum(math.log(best[(p, e)]) for p in pairs) / len(pairs)) for e in ('rr', 'rr2')}
print('medium, one thread, geo-mean of the best run: rr %.2f s, rr2 %.2f s (%.2fx)' % (g['rr'], g['rr2'], g['rr2'] / g['rr']))
proven = above = n = 0
for r in csv.reader(open(O + '/open.csv')):
    n += 1
    s, p = int(r[5]), r[6] == 'True'
    proven += p
    above += s > exp[r[1]]
    print(r[1], 'size', s, 'mcsplit', exp[r[1]], 'proven', p, 'verified', r[9])
print('open pairs: %d of %d proven; %d above McSplit\'s 1000 s incumbent' % (proven, n, above))
PY
