#!/usr/bin/env bash
# The device partition search's degree bias (issue #17) on the GPU machine,
# in one call: the vcls tests (twin against CUDA, NVIDIA OpenCL and PoCL,
# bit for bit), `arbor verify` of vcls_epoch, the solver on the hardest
# BHOSLIB instances with the GPU, then TestVCLSMeasure's bias comparison.
#
#   scripts/gpu/vcls-beta.sh [SEEDS [CAP [INSTANCES…]]]
#
# Needs .dev/arbor, .dev/algorithms_vertexcover_kernel.test (scripts/build-dev.sh:
# built with -tags measure) and .dev/data/vc/bhoslib.
set -uo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-1-4}
cap=${2:-12}
shift 2 || true
insts=${*:-frb59-26-2 frb59-26-4 frb56-25-1}
export ARBOR_DATA=${ARBOR_DATA:-$PWD/.dev/data}

echo "== vcls tests"
timeout 150 .dev/algorithms_vertexcover_kernel.test -test.run 'TestVCLS(Checks|Solves|StopEarly|BHOSLIB|StatePlace)' -test.v 2>&1 |
	grep -E '^(--- |ok|FAIL|PASS)|frb30' | grep -v SKIP
echo "== verify"
timeout 60 .dev/arbor verify --backend cuda --kernel vcls_epoch 2>&1 | tail -4
echo "== solver with the GPU (55 s cap)"
timeout 200 scripts/gpu/bhoslib-ls.sh 55s auto 56-25 59-26 2>&1
echo "== bias, 12x64, seeds $seeds, cap $cap s"
ARBOR_BACKEND=cuda timeout 300 .dev/algorithms_vertexcover_kernel.test -test.run TestVCLSMeasure -test.v \
	-vcls "$(tr ' ' ',' <<<"$insts")" -vcls.configs 12x64 -vcls.seeds "$seeds" -vcls.secs "$cap" -vcls.beta "${VCLS_BETA:-none,alt}" 2>&1 | grep -E 'seed|SUMMARY|FAIL' | sed 's/.*_test.go:[0-9]*: //'
