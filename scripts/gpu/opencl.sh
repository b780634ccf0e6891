#!/usr/bin/env bash
# The OpenCL backend on the GPU machine: list the devices, then run the
# OpenCL package's tests and the cross-backend conformance suite against
# every OpenCL device there (NVIDIA, and PoCL if installed), and print a
# short pass/fail table per device. Needs .dev/arbor, .dev/opencl.test and
# .dev/tests.test from scripts/build-dev.sh. About 3 minutes at most.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/arbor-out}
mkdir -p "$OUT"
LOG="$OUT/opencl-tests.log"
: >"$LOG"

# Find an ICD loader and the NVIDIA ICD when the system paths lack them
# (the CUDA toolkit ships libOpenCL.so.1; the driver ships libnvidia-opencl).
if ! ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1'; then
	for l in /usr/local/cuda/lib64/libOpenCL.so.1 /usr/local/cuda/targets/x86_64-linux/lib/libOpenCL.so.1 \
		/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 /usr/lib64/libOpenCL.so.1; do
		if [ -e "$l" ]; then export ARBOR_OPENCL_LIBRARY=$l; break; fi
	done
fi
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
	nv=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/{print $NF; exit}')
	if [ -n "$nv" ]; then export OCL_ICD_FILENAMES=$nv; fi
fi
echo "ICD loader: ${ARBOR_OPENCL_LIBRARY:-system libOpenCL.so.1}; vendors: $(ls /etc/OpenCL/vendors 2>/dev/null | tr '\n' ' ')${OCL_ICD_FILENAMES:+ (OCL_ICD_FILENAMES=$OCL_ICD_FILENAMES)}"

echo "=== arbor devices"
timeout 15s .dev/arbor devices >"$OUT/opencl-devices.txt" 2>&1
awk '/^[^ \t]/{p = ($0 ~ /^opencl/)} p' "$OUT/opencl-devices.txt"

export ARBOR_TEST_BACKENDS=opencl ARBOR_REQUIRE=opencl
export ARBOR_CACHE_DIR
ARBOR_CACHE_DIR=$(mktemp -d /tmp/arbor-opencl-cache.XXXXXX)

run() { # name binary timeout args...
	local name=$1 bin=$2 limit=$3
	shift 3
	if [ ! -x "$bin" ]; then
		echo "$name: $bin missing (run scripts/build-dev.sh)" | tee -a "$LOG"
		return 1
	fi
	echo "=== $name" >>"$LOG"
	local start=$(date +%s)
	timeout "$limit" "$bin" -test.v -test.count=1 -test.timeout="$limit" "$@" >>"$LOG" 2>&1
	local rc=$?
	echo "=== $name rc=$rc $(( $(date +%s) - start ))s" >>"$LOG"
	return $rc
}

# Two runs of the package tests: a cold cache, then a warm one (the second
# exercises cache hits on the real driver).
# Time limits add up to under 3 minutes with the device listing.
run opencl.test .dev/opencl.test 50s; rc1=$?
run opencl.test-warm .dev/opencl.test 20s -test.run 'Cache|Geometry|Scalar'; rc2=$?
run tests.test .dev/tests.test 70s; rc3=$?
run opencl.bench .dev/opencl.test 25s -test.run '^$' -test.bench . -test.benchtime 20x
rm -rf "$ARBOR_CACHE_DIR"

echo "=== failures (first lines of each)"
awk '/^ *--- FAIL/{n=8} n>0{print; n--}' "$LOG" | head -n 16

echo "=== benchmarks (launch+finish of 256 items; build from source vs cache; 16 MiB write+read)"
grep -E '^Benchmark.*ns/op' "$LOG" | sed -E 's/[[:space:]]+/ /g'

echo "=== results per device"
# Device subtests are named Test…/opencl/<index>-<name>; tests without
# them (host-only, or looping over devices themselves) count as "(whole test)".
awk '
/^=== [a-z.-]+$/ { bin = $2 }
/^ *--- (PASS|FAIL|SKIP): / {
	st = $2; sub(":", "", st); n = split($3, p, "/")
	if (n == 1) { top[bin SUBSEP p[1]] = st; next }
	if (p[2] != "opencl") next
	if (n == 2) { key = bin " (no OpenCL device)" } else if (n == 3) { key = bin " " p[3] } else next
	has[bin SUBSEP p[1]] = 1; cnt[key, st]++; keys[key] = 1
	if (st == "FAIL") bad[key] = bad[key] " " p[1]
}
END {
	for (t in top) if (!(t in has)) {
		split(t, q, SUBSEP); key = q[1] " (whole test)"; cnt[key, top[t]]++; keys[key] = 1
		if (top[t] == "FAIL") bad[key] = bad[key] " " q[2]
	}
	printf "%-60s %5s %5s %5s  %s\n", "binary / device", "pass", "fail", "skip", "failed"
	for (k in keys) printf "%-60s %5d %5d %5d %s\n", k, cnt[k, "PASS"], cnt[k, "FAIL"], cnt[k, "SKIP"], bad[k]
}' "$LOG" | sort
echo "runs: $(grep -E '^=== .* rc=' "$LOG" | sed 's/^=== //' | paste -sd ';' -); full log: $LOG"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ]
