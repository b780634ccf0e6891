#!/usr/bin/env bash
# Issue #35, item 3: many MCS instances in one process against one process
# per instance, on the GPU machine (no Go there: .dev/arbor is built here by
# scripts/build-dev.sh).
#
#   scripts/gpu/batch.sh [MIVIA_DIR]
#
# MIVIA_DIR holds the pairs and expected.csv (default ../shared/data/mcs/mivia,
# else shared/data/mcs/mivia). The instances are every proven pair of
# expected.csv whose original McSplit time is under BATCH_MAX_SECS (1) seconds.
# Modes, each timed as a whole (wall clock), every answer checked against
# expected.csv (size, and status optimal):
#   a  xargs -P$P single processes: arbor mcs G H --engine cpu --threads 1 --json
#   b  arbor mcs --batch LIST --engine cpu --threads $P --json
#   c  arbor mcs --batch LIST --json (auto: on a GPU, device slots and CPU slots)
#   d  arbor mcs --batch LIST --engine hybrid --json, and --engine gpu with each
#      --device-slots of BATCH_GPU_SLOTS ("4 16")
# Prints a table: mode, wall s, pairs/s, speed-up over (a), wrong (a size or
# status that is not expected.csv's, a failed or missing row).
# Env: ARBOR (.dev/arbor), BATCH_P (16), BATCH_MAX_SECS (1), BATCH_TIMEOUT
# (per instance, 60s), BATCH_GPU_SLOTS ("4 16"), BATCH_AUTO_SLOTS (more auto runs
# with these --device-slots; none by default), BATCH_KEEP=1 keeps the outputs.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
ARBOR=$(cd "$(dirname "$ARBOR")" && pwd)/$(basename "$ARBOR")
P=${BATCH_P:-16}
maxs=${BATCH_MAX_SECS:-1}
limit=${BATCH_TIMEOUT:-60s}
D=${1:-../shared/data/mcs/mivia}
[ -f "$D/expected.csv" ] || D=shared/data/mcs/mivia
if [ ! -f "$D/expected.csv" ]; then
	echo "batch.sh: no expected.csv in ${1:-../shared/data/mcs/mivia} or shared/data/mcs/mivia" >&2
	exit 1
fi
D=$(cd "$D" && pwd)
W=$(mktemp -d)
[ "${BATCH_KEEP:-}" = 1 ] || trap 'rm -rf "$W"' EXIT

# g,h,size for every proven pair under maxs seconds; the list is g,h.
awk -F, -v d="$D" -v m="$maxs" 'NR>1 && $7=="yes" && $6+0<m+0 {print d"/"$1","d"/"$2","$4}' "$D/expected.csv" >"$W/expected"
cut -d, -f1,2 "$W/expected" >"$W/list.csv"
n=$(wc -l <"$W/list.csv")
echo "batch.sh: $n proven pairs of $D/expected.csv under ${maxs}s (original McSplit); $(nproc) cores; P=$P; per instance --timeout $limit"
"$ARBOR" version
"$ARBOR" devices 2>&1 | awk '$2=="gpu" || $2=="cpu" {print "  " $0}' | head -4

now() { date +%s.%N; }

# wrong FILE: rows whose size or status is not expected.csv's, failed rows,
# and pairs with no row at all (JSON read with awk: no jq there).
wrong() {
	awk -v expf="$W/expected" '
		BEGIN { FS = ","; while ((getline l < expf) > 0) { split(l, f, ","); want[f[1] "," f[2]] = f[3]; total++ } FS = " " }
		{
			if (!match($0, /"files":\["[^"]*","[^"]*"\]/)) { bad++; next }
			fl = substr($0, RSTART + 9, RLENGTH - 10); gsub(/"/, "", fl)
			size = ""; status = ""
			if (match($0, /"size":[0-9]+/)) size = substr($0, RSTART + 7, RLENGTH - 7)
			if (match($0, /"status":"[a-z]+"/)) status = substr($0, RSTART + 10, RLENGTH - 11)
			if (!(fl in want) || (fl in seen)) { bad++; next }
			seen[fl] = 1
			if ($0 ~ /"error":/ || size != want[fl] || status != "optimal") bad++
		}
		END { for (k in want) if (!(k in seen)) bad++; print bad + 0 }' "$1"
}

declare -a rows
base=""
# timed NAME CMD...: runs CMD (stdout to $W/NAME.jsonl), records a row.
timed() {
	local name=$1
	shift
	local t0 t1 rc
	t0=$(now)
	"$@" >"$W/$name.jsonl" 2>"$W/$name.err"
	rc=$?
	t1=$(now)
	local wall
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
	[ -n "$base" ] || base=$wall
	local bad
	bad=$(wrong "$W/$name.jsonl")
	rows+=("$(awk -v m="$name" -v w="$wall" -v n="$n" -v b="$base" -v bad="$bad" -v rc="$rc" \
		'BEGIN{printf "%-34s %9.3f %9.1f %8.2fx %6d %4d", m, w, n/w, b/w, bad, rc}')")
	if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
		echo "  $name: exit $rc, $bad wrong; stderr:" >&2
		tail -3 "$W/$name.err" >&2
	fi
}

single() {
	tr ',' ' ' <"$W/list.csv" | xargs -P "$P" -n 2 sh -c \
		'"$0" mcs "$1" "$2" --engine cpu --threads 1 --timeout "$LIMIT" --json' "$ARBOR" | cat
}
export LIMIT=$limit
timed "a xargs -P$P, --threads 1" single
timed "b --batch cpu --threads $P" "$ARBOR" mcs --batch "$W/list.csv" --engine cpu --threads "$P" --timeout "$limit" --json
timed "c --batch auto" "$ARBOR" mcs --batch "$W/list.csv" --timeout "$limit" --json -v
for s in ${BATCH_AUTO_SLOTS:-}; do
	timed "c --batch auto --device-slots $s" "$ARBOR" mcs --batch "$W/list.csv" --device-slots "$s" --timeout "$limit" --json
done
timed "d --batch hybrid" "$ARBOR" mcs --batch "$W/list.csv" --engine hybrid --timeout "$limit" --json
for s in ${BATCH_GPU_SLOTS:-4 16}; do
	timed "d --batch gpu --device-slots $s" "$ARBOR" mcs --batch "$W/list.csv" --engine gpu --device-slots "$s" --timeout "$limit" --json
done

echo
printf '%-34s %9s %9s %9s %6s %4s\n' mode "wall s" pairs/s speed-up wrong exit
for r in "${rows[@]}"; do echo "$r"; done
# Where the rows ran, for the device modes: engine counts.
for f in "$W"/c*.jsonl "$W"/d*.jsonl; do
	[ -f "$f" ] || continue
	printf '%s: ' "$(basename "$f" .jsonl)"
	grep -o '"engine":"[a-z]*"' "$f" | sort | uniq -c | tr '\n' ' '
	echo
done
[ "${BATCH_KEEP:-}" = 1 ] && echo "outputs kept in $W"
