#!/usr/bin/env bash
# The parallel McSplit engine against one thread on the large dev pairs:
# the mcs90 pairs that the original McSplit proved in more than 100 s and
# at most MAX seconds (expected.csv; default 400: 21 pairs).
#
#   scripts/gpu/mcslarge.sh par [MAX]   16 threads, one pair after another
#   scripts/gpu/mcslarge.sh seq [MAX]   1 thread, 16 pairs at a time, longest first
#
# Each run is checked (--verify, size against expected.csv) and written as
# "pair threads size proven nodes seconds" to $OUT/mcslarge-MODE.txt (or
# .dev/), then printed as a table. seq's runs share the machine's cores and
# memory bandwidth 16 ways: its times are, if anything, too slow.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
D=.dev/data/mcs/mivia
[ -f "$D/expected.csv" ] || D=../shared/data/mcs/mivia
mode=${1:?par or seq}
max=${2:-400}
out=${OUT:-.dev}/mcslarge-$mode.txt
: >"$out"
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
run() { # g h size threads timeout
	local r
	r=$("$ARBOR" mcs "$D/$1" "$D/$2" --engine cpu --threads "$4" --timeout "$5" --verify --json 2>/dev/null)
	local size proven nodes secs
	size=$(field size <<<"$r")
	proven=$(field proven <<<"$r")
	nodes=$(field nodes <<<"$r")
	secs=$(field seconds <<<"$r")
	local check=ok
	if [ "$proven" = true ] && [ "$size" != "$3" ]; then check="WRONG(expected $3)"; fi
	echo "${1%.*}.${1##*.} $4 ${size:-?} ${proven:-?} ${nodes:-?} ${secs:-?} $check" >>"$out"
}
export -f run field
export ARBOR D out MCS_TIMEOUT
pairs=$(awk -F, -v m="$max" 'NR>1 && $7=="yes" && $6>100 && $6<=m && $1 ~ /^mcs90/ {print $6, $1, $2, $4}' "$D/expected.csv" | sort -rn)
case $mode in
par) while read -r _ g h size; do run "$g" "$h" "$size" 16 "${MCS_TIMEOUT:-300s}"; done <<<"$pairs" ;;
seq) awk '{print $2, $3, $4}' <<<"$pairs" | xargs -P 16 -L 1 bash -c 'run "$0" "$1" "$2" 1 "${MCS_TIMEOUT:-560s}"' ;;
*) echo "mode: par or seq" >&2; exit 2 ;;
esac
printf '%-22s %7s %5s %6s %14s %9s %s\n' pair threads size proven nodes seconds check
sort "$out" | while read -r p th s pr n sec c; do printf '%-22s %7s %5s %6s %14s %9s %s\n' "$p" "$th" "$s" "$pr" "$n" "$sec" "$c"; done
