#!/usr/bin/env bash
# Maximum clique's device engine on the GPU machine: the clique_epoch
# conformance checks on CUDA (`arbor verify`: fixed-goal node counts equal
# to the Go twin's), the package's device tests when their binary is there,
# then `arbor clique --complement` with the CPU engine on CLIQUE_THREADS
# (16) threads, the gpu engine and the hybrid over the instances of
# clique/optima.csv, each under CLIQUE_TIMEOUT (60s); a table last.
#
# Needs .dev/arbor (scripts/build-dev.sh; `scripts/build-dev.sh
# ./algorithms/clique` also builds .dev/algorithms_clique.test) and the data
# under .dev/data: clique/optima.csv and the files it names relative to it
# (vc/yamout2022/cop_hat*.txt, vc/bhoslib/frb30-15-1.mis, frb35-17-1.mis,
# about 4 MB). `scripts/gpu/clique.sh --copy-data` copies them there from
# ../shared/data, on this machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
DATA=${ARBOR_DATA:-.dev/data}
SRC=../shared/data
threads=${CLIQUE_THREADS:-16}
limit=${CLIQUE_TIMEOUT:-60s}
backend=${CLIQUE_BACKEND:-cuda}
if [ "${1:-}" = --copy-data ]; then
	mkdir -p .dev/data/clique
	cp "$SRC/clique/optima.csv" .dev/data/clique/
	tail -n +2 "$SRC/clique/optima.csv" | cut -d, -f1 | while read -r f; do
		mkdir -p ".dev/data/clique/$(dirname "$f")"
		cp "$SRC/clique/$f" ".dev/data/clique/$f"
	done
	du -sh .dev/data
	exit 0
fi
[ -x "$ARBOR" ] || { echo "clique.sh: $ARBOR not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
[ -f "$DATA/clique/optima.csv" ] || { echo "clique.sh: $DATA/clique/optima.csv not found (scripts/gpu/clique.sh --copy-data)" >&2; exit 1; }
DATA=$(cd "$DATA" && pwd)
echo "clique.sh: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
fail=0

echo "== clique_epoch and kcount_epoch conformance on $backend (node counts against the Go twins)"
if ! timeout 300 "$ARBOR" verify --backend "$backend" --kernel clique_epoch,kcount_epoch; then
	echo "clique.sh: verify FAILED"
	fail=1
fi
if [ -x .dev/algorithms_clique.test ]; then
	echo "== device tests (ARBOR_TEST_BACKENDS=$backend,cpu)"
	if ! (cd algorithms/clique && ARBOR_REQUIRE=$backend ARBOR_TEST_BACKENDS=$backend,cpu ARBOR_DATA=$DATA \
		timeout 300 ../../.dev/algorithms_clique.test -test.run 'Device' -test.v 2>&1 | grep -E '^(---|ok|FAIL|PASS)|nodes|ω'); then
		fail=1
	fi
fi

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
rows=()
declare -A sum
engines=("cpu:--engine cpu --threads $threads" "gpu:--engine gpu --backend $backend" "hybrid:--engine hybrid --backend $backend")
while IFS=, read -r file n omega; do
	[ "$file" = file ] && continue
	f="$DATA/clique/$file"
	name=$(basename "${file%.*}")
	if [ ! -f "$f" ]; then
		rows+=("$name|$n|$omega|missing|||||||")
		continue
	fi
	row="$name|$n|$omega"
	secs=()
	for spec in "${engines[@]}"; do
		e=${spec%%:*}
		read -r -a opt <<<"${spec#*:}"
		out=$(timeout 900 "$ARBOR" clique "$f" --complement --json --verify --timeout "$limit" "${opt[@]}" 2>/dev/null)
		rc=$?
		s=$(field size <<<"$out")
		p=$(field proven <<<"$out")
		t=$(field seconds <<<"$out")
		nodes=$(field nodes <<<"$out")
		ep=$(field epochs <<<"$out")
		nn=$(field n <<<"$out")
		# A Yamout file read with its spare vertex 0 has one vertex more,
		# joined to all in the complement: ω + 1.
		want=$omega
		[ -n "$nn" ] && [ "$nn" = $((n + 1)) ] && want=$((omega + 1))
		check=ok
		if [ $rc -ne 0 ] || [ -z "$s" ]; then
			check="exit$rc"
			fail=1
		elif [ "$s" -gt "$want" ] || { [ "$p" = true ] && [ "$s" != "$want" ]; }; then
			check="SIZE$s≠$want"
			fail=1
		elif [ "$p" != true ]; then
			check="unproven($s)"
		fi
		echo "$name $e: size ${s:--} proven ${p:--} nodes ${nodes:--} epochs ${ep:--} ${t:--}s $check" >&2
		row="$row|$(printf '%.3f' "${t:-0}")|${nodes:--}|$check"
		secs+=("${t:-0}")
		sum[$e]=$(awk -v a="${sum[$e]:-0}" -v b="${t:-0}" 'BEGIN{print a+b}')
	done
	sp() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "-" }'; }
	rows+=("$row|$(sp "${secs[0]}" "${secs[1]}")|$(sp "${secs[0]}" "${secs[2]}")")
done <"$DATA/clique/optima.csv"

echo
printf '%-14s %4s %3s | %9s %12s %-10s | %9s %12s %-10s | %9s %12s %-10s | %7s %7s\n' instance n ω \
	"cpu${threads} s" nodes check "gpu s" nodes check "hybrid s" nodes check "cpu/gpu" "cpu/hyb"
for r in "${rows[@]}"; do
	IFS='|' read -r a b c d1 d2 d3 e1 e2 e3 f1 f2 f3 g1 g2 <<<"$r"
	printf '%-14s %4s %3s | %9s %12s %-10s | %9s %12s %-10s | %9s %12s %-10s | %7s %7s\n' \
		"$a" "$b" "$c" "$d1" "$d2" "$d3" "$e1" "$e2" "$e3" "$f1" "$f2" "$f3" "$g1" "$g2"
done
printf 'sums: cpu%s %.2f s  gpu %.2f s  hybrid %.2f s (timeouts at %s count as %s)\n' "$threads" "${sum[cpu]:-0}" "${sum[gpu]:-0}" "${sum[hybrid]:-0}" "$limit" "$limit"
exit $fail
