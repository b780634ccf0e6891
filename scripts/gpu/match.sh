#!/usr/bin/env bash
# Matching end to end on the GPU machine (issue 18): the checks of the
# matching kernels and engine on CUDA and NVIDIA OpenCL, Run's wall-clock
# split on rmat-s23 (CUDA and the 16-core CPU backend, after a warm-up),
# and `arbor match` from a generated ≥10^8-edge Matrix Market file to the
# written output on both, with the outputs compared.
#
#   scripts/gpu/match.sh [checks|bench|cli|read]...   (default: checks bench cli)
#
# Needs .dev/arbor, .dev/algorithms_matching.test and .dev/tests.test
# (scripts/build-dev.sh ./algorithms/matching ./tests). Prints a table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-match-cache}
steps=${*:-checks bench cli}
table=()

for step in $steps; do
	case $step in
	checks)
		for be in cuda opencl; do
			(cd algorithms/matching && ARBOR_TEST_BACKENDS=$be timeout 300 "$root/.dev/algorithms_matching.test" \
				-test.run 'TestGenerated|TestPrepareRanks|TestReferenceOutputs' 2>&1 | tail -3) | tee "$OUT/match-check-$be.log"
			table+=("checks $be: $(tail -1 "$OUT/match-check-$be.log")")
			(cd tests && ARBOR_TEST_BACKENDS=$be timeout 300 "$root/.dev/tests.test" -test.run 'TestKernelChecks' \
				2>&1 | tail -3) | tee "$OUT/kernel-check-$be.log"
			table+=("kernel checks $be: $(tail -1 "$OUT/kernel-check-$be.log")")
		done
		;;
	bench)
		(cd algorithms/matching && timeout 580 \
			"$root/.dev/algorithms_matching.test" -test.run XXX -test.bench 'Handshake/rmat-s23/(cuda|cpu)/fast$' \
			-test.benchtime 3x -match.maxedges 1.4e8 -match.backends cuda,cpu 2>&1) | tee "$OUT/match-bench.log"
		while read -r line; do
			name=$(echo "$line" | awk '{print $1}')
			pick() { echo "$line" | grep -o "[0-9.e+]* $1" | awk '{print $1}'; }
			table+=("$(printf '%-40s e2e %8s ms  loop %8s ms  setup %s upload %s loop %s download %s total %s release %s' \
				"$name" "$(pick e2e-ms)" "$(pick loop-ms)" "$(pick w-setup-ms)" "$(pick w-upload-ms)" "$(pick w-loop-ms)" \
				"$(pick w-download-ms)" "$(pick w-total-ms)" "$(pick w-release-ms)")")
		done < <(grep '^BenchmarkHandshake' "$OUT/match-bench.log")
		;;
	cli)
		big=/tmp/arbor-big.mtx
		if [ ! -s $big ]; then
			timeout 400 .dev/arbor generate rmat --scale 23 --edge-factor 16 --weights real:0:1 -o $big 2>&1 | tee "$OUT/generate.log"
		fi
		ls -la $big
		for be in cuda cpu; do
			# The CUDA run is profiled (ARBOR_CPUPROFILE): where the host's time goes.
			prof=""
			[ $be = cuda ] && prof="$OUT/cli-cuda.prof"
			ARBOR_CPUPROFILE=$prof timeout 300 .dev/arbor match $big --max-input 8G --backend $be --json -o /tmp/arbor-mate-$be.txt > "$OUT/cli-$be.json" 2> "$OUT/cli-$be.err"
			table+=("cli $be: rc $? $(python3 -c "
import json,sys
d=json.load(open('$OUT/cli-$be.json'))
print('read %.0f MB/s;' % d['read_mb_per_s'], ', '.join('%s %.0f ms' % (p['name'], p['seconds']*1e3) for p in d['time']), '; pairs', d['size'])
" 2>&1)")
		done
		if cmp -s /tmp/arbor-mate-cuda.txt /tmp/arbor-mate-cpu.txt; then table+=("cli: cuda and cpu outputs identical"); else table+=("cli: OUTPUTS DIFFER"); fi
		;;
	read)
		# core's reader alone: 10^8 Matrix Market entries, 1 and 16 cores.
		(cd core && timeout 500 "$root/.dev/core.test" -test.run XXX -test.bench "ReadLarge/mtx-real" \
			-test.cpu 16,1 -test.benchtime 1x -read.edges 1e8 2>&1) | tee "$OUT/read-bench.log"
		while read -r line; do table+=("$line"); done < <(grep '^BenchmarkReadLarge' "$OUT/read-bench.log")
		;;
	esac
done
echo
echo "== summary"
printf '%s\n' "${table[@]}"
