#!/usr/bin/env bash
# Issue 44's open-pair targets on the GPU machine: the 32-pair
# McSplit-open sample of docs/results/mcs.md (every 39th proven=no row of
# expected.csv, the first 32) at TIMEOUTS (default "8 60") seconds, for
# each engine spec of SPECS (default "auto:rr cpu:rr2"; ENGINE:PRUNE), one
# pair at a time with THREADS (16) threads; FIRST/LAST pick a slice of the
# 32 (1-based, default 1 and 32) so that the 60 s round can be split over
# calls of the run tool (10 minutes each: 8 pairs at 60 s a call). Every
# run is --verify'd; sizes above McSplit's 1,000 s incumbent are listed.
# Set up here:
#
#   scripts/gpu/mcsopen.sh --copy DIR   copy arbor (build it first into
#                                        DIR/arbor), this script, the pair
#                                        list and the 64 graph files into DIR
#   DIR/mcsopen.sh                       (there) run; summary last, logs in $OUT
set -euo pipefail
if [[ ${1:-} == --copy ]]; then
  dir=$2 src=${ARBOR_DATA:-../shared/data}/mcs/mivia
  mkdir -p "$dir/data"
  cp "$0" "$dir/mcsopen.sh"
  awk -F, 'NR>1 && $7=="no"' "$src/expected.csv" | awk -F, 'NR%39==1' | head -32 > "$dir/open32.csv"
  cut -d, -f1,2 "$dir/open32.csv" | tr , '\n' | while read -r f; do cp "$src/$f" "$dir/data/"; done
  exit 0
fi
cd "$(dirname "$0")"
O=${OUT:-/tmp/mcsopen}; mkdir -p "$O"
first=${FIRST:-1} last=${LAST:-32}
for t in ${TIMEOUTS:-8 60}; do
  for spec in ${SPECS:-auto:rr cpu:rr2}; do
    eng=${spec%%:*} pr=${spec##*:}
    sed -n "${first},${last}p" open32.csv | while IFS=, read -r g h _; do
      r=$(./arbor mcs "data/$g" "data/$h" --engine "$eng" --prune "$pr" --threads "${THREADS:-16}" \
        --timeout "$t" --verify --json 2>>"$O/err.log") || true
      echo "$t,$eng,$pr,$g,$(echo "$r" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["size"],d["proven"],d["nodes"],round(d["seconds"],3),d.get("verified"),sep=",")' 2>/dev/null || echo "error")"
    done
  done
done | tee -a "$O/open.csv"
python3 - "$O" <<'PY'
import sys, csv, collections
O = sys.argv[1]
exp = {r[0]: int(r[3]) for r in csv.reader(open('open32.csv'))}
runs = collections.defaultdict(list)
for r in csv.reader(open(O + '/open.csv')):
    if len(r) < 9:
        print('ERROR', r)
        continue
    runs[(r[0], r[1], r[2])].append(r)
for (t, eng, pr), rs in sorted(runs.items()):
    proven = sum(r[5] == 'True' for r in rs)
    above = [f'{r[3]} {r[4]}>{exp[r[3]]}' for r in rs if int(r[4]) > exp[r[3]]]
    bad = [r[3] for r in rs if r[8] != 'True']
    print(f'{t} s, {eng} --prune {pr}: {proven} of {len(rs)} proven; above McSplit on {len(above)}: {", ".join(above)}')
    for r in rs:
        if r[5] == 'True':
            print(f'  proven: {r[3]} size {r[4]} in {r[7]} s ({r[6]} nodes)')
    if bad:
        print('  NOT VERIFIED:', bad)
PY
