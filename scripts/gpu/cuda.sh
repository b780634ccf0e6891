#!/usr/bin/env bash
# The CUDA backend on the GPU machine: device listing, the cuda package's
# tests (device info, transfers, OOM, compile errors, cache, PTX fallback,
# launch geometry, scalars, local memory, events) with the bandwidth and
# launch-latency measurements, and the conformance suite on CUDA alone.
# Needs .dev/arbor, .dev/cuda.test and .dev/tests.test (scripts/build-dev.sh);
# the device and algorithm kernel packages' test binaries are run too when present. Then the primitives' benchmark,
# CUDA against NVIDIA OpenCL. Prints a table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"
export ARBOR_REQUIRE=cuda ARBOR_TEST_BACKENDS=cuda
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-cuda-cache}

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "== arbor devices"
timeout 60 .dev/arbor devices 2>&1 | tee "$OUT/cuda-devices.log"

# run NAME DIR BINARY ARGS...: a test binary from its package's folder.
results=()
status=0
run() {
	local name=$1 dir=$2 bin=$3
	shift 3
	if [ ! -x "$root/.dev/$bin" ]; then
		results+=("$(printf '%-12s missing .dev/%s' "$name" "$bin")")
		return
	fi
	echo "== $name"
	local start=$(date +%s)
	(cd "$root/$dir" && timeout 300 "$root/.dev/$bin" -test.v -test.timeout 290s "$@") >"$OUT/$name.log" 2>&1
	local rc=$?
	grep -E '^(=== RUN|--- (PASS|FAIL|SKIP)|\s+--- (PASS|FAIL|SKIP)|PASS|FAIL|ok|panic)' "$OUT/$name.log" | grep -v '^=== RUN' | tail -n 80
	local pass fail skip
	pass=$(grep -cE -- '--- PASS' "$OUT/$name.log")
	fail=$(grep -cE -- '--- FAIL' "$OUT/$name.log")
	skip=$(grep -cE -- '--- SKIP' "$OUT/$name.log")
	results+=("$(printf '%-12s rc=%-3d pass=%-4d fail=%-3d skip=%-3d %4ds' "$name" "$rc" "$pass" "$fail" "$skip" "$(($(date +%s) - start))")")
	if [ "$fail" -gt 0 ] || [ "$rc" -ne 0 ]; then
		status=1
		grep -B2 -A25 -E -- '--- FAIL|panic' "$OUT/$name.log" | head -n 120
	fi
}

run cuda-pkg cuda cuda.test
run cuda-tests tests tests.test
run cuda-device device device.test
run cuda-prim device/prim device_prim.test
run cuda-search device/search device_search.test
for a in mcs clique vertexcover matching kcount; do
	run cuda-$a-kernel algorithms/$a/kernel algorithms_${a}_kernel.test
done

# The primitives through CUDA and through NVIDIA's OpenCL, side by side:
# wall µs per call, the device span of a call, and the kernels alone
# (tests/primitives_bench_test.go). About 30 s.
prims=()
if [ -x "$root/.dev/tests.test" ]; then
	echo "== primitives: CUDA vs NVIDIA OpenCL"
	(cd "$root/tests" && ARBOR_REQUIRE= ARBOR_TEST_BACKENDS=cuda,opencl \
		timeout 120 "$root/.dev/tests.test" -test.run '^$' -test.bench 'Primitive' -test.benchtime 200x -prim.devices cuda,opencl:NVIDIA) >"$OUT/cuda-primitives.log" 2>&1
	mapfile -t prims < <(awk '/^Benchmark/ { n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n); line = sprintf("  %-42s", n)
		for (i = 3; i <= NF; i++) if ($i == "ns/op" && n ~ /^Primitive\//) line = line sprintf(" %9.1f us/call", $(i-1) / 1000); else if ($i ~ /us/) line = line sprintf(" %9.1f %s", $(i-1), $i)
		print line }' "$OUT/cuda-primitives.log")
fi

echo "== CUDA backend on $(hostname)"
grep -h 'MEASURE' "$OUT/cuda-pkg.log" | sed 's/^.*MEASURE /  /'
printf '%s\n' "${prims[@]}"
printf '%s\n' "${results[@]}"
exit $status
