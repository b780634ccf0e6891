#!/usr/bin/env bash
# Where a run's start-up goes on the GPU machine, and what it costs per pair
# (issue 35, item 1). No Go there: the binaries come from
# scripts/build-dev.sh (.dev/arbor and .dev/cuda.test). Modes:
#
#   scripts/gpu/startup.sh copy DATA
#       here, before the GPU run: copy expected.csv, the trivial pair and the
#       table's pairs from DATA (a MIVIA folder with expected.csv) into
#       .dev/data/mcs/mivia, which travels to the GPU machine.
#   scripts/gpu/startup.sh startup [DATA]
#       `arbor devices -v --json`'s phases (each backend's probe, each
#       device's opening and first kernel); then RUNS (3) timed runs each of
#       `arbor devices` and of a trivial pair with --engine cpu, auto, gpu
#       and hybrid (wall time, and the solver's own `seconds`); then the cuda
#       test binary's overlap and phase tests (TestQueuesOverlap,
#       TestOpenPhases).
#   scripts/gpu/startup.sh table [DATA]
#       per pair: --engine cpu --threads THREADS, --engine hybrid and
#       --engine auto, each with --json --timeout TIMEOUT; prints wall and
#       solver seconds per engine and the engine auto ran, then totals.
#
# DATA defaults to .dev/data/mcs/mivia, else ../shared/data/mcs/mivia.
# Pairs: proven=yes with the original McSplit's seconds in [MIN, MAX]
# (5, 60), the first COUNT (24) in file order; PAIRS="g,h g,h ..." names
# them instead. TRIVIAL="g,h" overrides the trivial pair (default: the
# fastest proven pair of expected.csv). ENGINES overrides the table's
# engines ("cpu hybrid auto"). ARBOR overrides the binary.
#
# One GPU call: here, `scripts/build-dev.sh ./cuda` and
# `scripts/gpu/startup.sh copy ../shared/data/mcs/mivia`; then on the GPU
# machine, carrying .dev: `scripts/gpu/startup.sh startup; scripts/gpu/startup.sh table`
# (the table is 24 pairs × 3 engines, a few minutes at most).
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
CUDATEST=${CUDATEST:-.dev/cuda.test}
RUNS=${RUNS:-3}
THREADS=${THREADS:-16}
TIMEOUT=${TIMEOUT:-60}
MIN=${MIN:-5}
MAX=${MAX:-60}
COUNT=${COUNT:-24}
read -r -a ENGINE_LIST <<<"${ENGINES:-cpu hybrid auto}"

usage() {
	sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

datadir() {
	local d=${1:-}
	if [ -z "$d" ]; then
		d=.dev/data/mcs/mivia
		[ -f "$d/expected.csv" ] || d=../shared/data/mcs/mivia
	fi
	if [ ! -f "$d/expected.csv" ]; then
		echo "startup.sh: no expected.csv in $d (give the MIVIA folder as DATA)" >&2
		exit 2
	fi
	printf '%s\n' "$d"
}

# pairs DATA: "g h" per line, the table's pairs.
pairs() {
	if [ -n "${PAIRS:-}" ]; then
		tr ' ' '\n' <<<"$PAIRS" | awk -F, 'NF == 2 { print $1, $2 } NF != 2 && NF > 0 { print "startup.sh: PAIRS entry " $0 " is not g,h" > "/dev/stderr"; exit 2 }'
		return
	fi
	awk -F, -v lo="$MIN" -v hi="$MAX" -v n="$COUNT" \
		'NR > 1 && $7 == "yes" && $6 + 0 >= lo && $6 + 0 <= hi && k < n { print $1, $2; k++ }' "$1/expected.csv"
}

# trivial DATA: "g h", the fastest proven pair (TRIVIAL overrides).
trivial() {
	if [ -n "${TRIVIAL:-}" ]; then
		awk -F, '{ print $1, $2 }' <<<"$TRIVIAL"
		return
	fi
	awk -F, 'NR > 1 && $7 == "yes" && (best == "" || $6 + 0 < best) { best = $6 + 0; p = $1 " " $2 } END { print p }' "$1/expected.csv"
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# field NAME: the first "NAME":value of compact JSON on stdin.
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2- | tr -d '"'; }

# engine_args NAME: the mcs flags of a table engine.
engine_args() {
	case $1 in
	cpu) echo "--engine cpu --threads $THREADS" ;;
	*) echo "--engine $1" ;;
	esac
}

# phases: the phases of `arbor devices -v --json` (indented JSON), one line
# each, under the backend or device they belong to.
phases() {
	awk '
		/^    "backend":/ { gsub(/[",]/, "", $2); print "backend " $2 }
		/"seconds":/ && !inphase && !indev { gsub(/,/, "", $2); printf "  probe %10.3f ms\n", $2 * 1000 }
		/"seconds":/ && !inphase && indev { gsub(/,/, "", $2); printf "  open and first kernel %10.3f ms: %s\n", $2 * 1000, dev }
		/"device":/ { indev = 1; sub(/^ *"device": "/, ""); sub(/",$/, ""); dev = $0 }
		/"phases": \[/ { inphase = 1 }
		inphase && /"name":/ { sub(/^ *"name": "/, ""); sub(/",$/, ""); name = $0 }
		inphase && /"seconds":/ { gsub(/,/, "", $2); printf "    %10.3f ms  %s\n", $2 * 1000, name }
		inphase && /^ *\]/ { inphase = 0 }
		indev && /^ *"error":/ { sub(/^ *"error": /, ""); print "    ERROR " $0 }
		/^  }/ { indev = 0 }
	'
}

mode=${1:-}
[ -n "$mode" ] || usage
shift

case $mode in
copy)
	[ $# -eq 1 ] || usage
	src=$(datadir "$1") || exit 2
	dst=.dev/data/mcs/mivia
	mkdir -p "$dst"
	cp "$src/expected.csv" "$dst/"
	{ trivial "$src"; pairs "$src"; } | while read -r g h; do
		cp "$src/$g" "$src/$h" "$dst/" || exit 1
	done
	echo "copied $(($(ls "$dst" | wc -l) - 1)) graphs to $dst"
	;;

startup)
	[ $# -le 1 ] || usage
	D=$(datadir "${1:-}") || exit 2
	if command -v nvidia-smi >/dev/null; then
		# Without persistence mode the driver tears the GPU's state down
		# when no process holds it, and every cuInit builds it again.
		echo "== nvidia-smi: persistence mode, driver"
		nvidia-smi --query-gpu=name,persistence_mode,driver_version --format=csv,noheader
		echo
	fi
	echo "== arbor devices -v --json: phases"
	"$ARBOR" devices -v --json | phases
	echo
	read -r tg th <<<"$(trivial "$D")"
	echo "== wall seconds of $RUNS runs each (trivial pair $tg $th; solver seconds in brackets)"
	printf '%-26s' "run"
	for i in $(seq "$RUNS"); do printf ' %18s' "run $i"; done
	echo
	printf '%-26s' "arbor devices"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		"$ARBOR" devices >/dev/null 2>&1
		printf ' %18s' "$(since "$t0")"
	done
	echo
	for e in cpu auto gpu hybrid; do
		printf '%-26s' "mcs --engine $e"
		for i in $(seq "$RUNS"); do
			t0=$(now)
			out=$("$ARBOR" mcs "$D/$tg" "$D/$th" --engine "$e" --json --timeout "$TIMEOUT" 2>/dev/null)
			rc=$?
			w=$(since "$t0")
			if [ $rc -ne 0 ]; then
				printf ' %18s' "$w (exit $rc)"
			else
				printf ' %18s' "$w [$(field seconds <<<"$out" | awk '{ printf "%.3f", $1 }')]"
			fi
		done
		[ -n "${out:-}" ] && printf '  %s' "ran $(field engine <<<"$out")"
		echo
	done
	echo
	echo "== cuda: queues overlap, open phases"
	if [ -x "$CUDATEST" ]; then
		"$CUDATEST" -test.run 'TestQueuesOverlap|TestOpenPhases' -test.v -test.count=1 2>&1 | grep -v '^=== '
	else
		echo "no $CUDATEST (scripts/build-dev.sh ./cuda builds it)"
	fi
	;;

table)
	[ $# -le 1 ] || usage
	D=$(datadir "${1:-}") || exit 2
	list=$(pairs "$D") || exit 2
	[ -n "$list" ] || { echo "startup.sh: no pairs selected from $D/expected.csv" >&2; exit 2; }
	printf '%-24s' pair
	for e in "${ENGINE_LIST[@]}"; do printf ' %12s %12s' "$e-wall" "$e-solve"; done
	printf '  %s\n' "auto ran"
	declare -A wall solve
	n=0
	fail=0
	unproven=
	notes=()
	errf=$(mktemp)
	while read -r g h; do
		n=$((n + 1))
		printf '%-24s' "$g"
		ran=-
		for e in "${ENGINE_LIST[@]}"; do
			# shellcheck disable=SC2046 # engine_args is meant to split
			t0=$(now)
			out=$("$ARBOR" mcs "$D/$g" "$D/$h" $(engine_args "$e") --json --timeout "$TIMEOUT" </dev/null 2>"$errf")
			rc=$?
			w=$(since "$t0")
			s=$(field seconds <<<"$out")
			if [ $rc -ne 0 ] || [ -z "$s" ]; then
				printf ' %12s %12s' "$w" "exit$rc"
				notes+=("$g $e: exit $rc: $(head -c 300 "$errf" | tr '\n' ' ')")
				fail=1
				s=0
			else
				mark=
				[ "$(field proven <<<"$out")" = true ] || { mark='*'; unproven=1; }
				printf ' %12s %12s' "$w" "$(awk -v s="$s" 'BEGIN { printf "%.3f", s }')$mark"
				[ "$e" = auto ] && ran=$(field engine <<<"$out")
			fi
			wall[$e]=$(awk -v a="${wall[$e]:-0}" -v b="$w" 'BEGIN { print a + b }')
			solve[$e]=$(awk -v a="${solve[$e]:-0}" -v b="$s" 'BEGIN { print a + b }')
		done
		printf '  %s\n' "$ran"
	done <<<"$list"
	printf '%-24s' "total ($n pairs)"
	for e in "${ENGINE_LIST[@]}"; do printf ' %12.3f %12.3f' "${wall[$e]}" "${solve[$e]}"; done
	echo
	[ -z "${unproven:-}" ] || echo "* not proven within --timeout $TIMEOUT"
	for note in "${notes[@]}"; do echo "$note"; done
	rm -f "$errf"
	exit $fail
	;;

*) usage ;;
esac
