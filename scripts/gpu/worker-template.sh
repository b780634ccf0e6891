#!/usr/bin/env bash
# Issue #41 item 3 on the GPU machine: the search kernels moved onto
# devsearch.cl's worker-loop template (ds_worker) and search.Params. What
# could not be run where they were converted (CUDA, NVIDIA's OpenCL):
#   1. every search kernel's fixed-goal check outputs (node counts) on
#      every backend, against the counts recorded on the CPU twin and PoCL
#      before the change (the "want" lines below; TestSearchNodes);
#   2. the device-vs-twin comparison of every check (TestKernelChecks) and
#      the signature test (TestParamsMatchKernels);
#   3. scripts/gpu/restructure-check.sh: arbor verify, the engines'
#      fixed-goal tests and fixed-goal CLI node counts on every backend;
#   4. scripts/gpu/devsearch-ab.sh: the gpu engines of the build before the
#      template (.dev/arbor-before) and after, side by side: nodes equal,
#      seconds within noise (the kernels now keep the loop's state in a
#      struct; NVRTC should keep it in registers as before).
#
# The carry to the GPU machine is 64 MiB at most and one arbor binary is
# about 29 MiB, so each part is its own call, each with its own .dev
# (Go is not on the GPU machine: build here, carry .dev, run there):
#   scripts/gpu/worker-template.sh --prepare checks   # here: 1 and 2
#   scripts/gpu/worker-template.sh checks             # there
#   scripts/gpu/worker-template.sh --prepare ab       # here: 4
#   scripts/gpu/worker-template.sh ab                 # there
#   scripts/gpu/restructure-check.sh --prepare        # here: 3
#   scripts/gpu/restructure-check.sh                  # there
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=../shared/data
BEFORE=${WT_BEFORE:-74bc434} # main before the template

if [ "${1:-}" = --prepare ]; then
	rm -rf .dev # each part's .dev alone fits the carry
	case "${2:-}" in
	checks)
		BUILD_TAGS=measure scripts/build-dev.sh ./tests ./device/search || exit 1
		rm -f .dev/arbor
		;;
	ab)
		mkdir -p .dev
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o .dev/arbor ./cmd/arbor || exit 1
		tmp=$(mktemp -d)
		git archive "$BEFORE" | tar -x -C "$tmp" &&
			(cd "$tmp" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OLDPWD/.dev/arbor-before" ./cmd/arbor) || exit 1
		rm -rf "$tmp"
		cp -r scripts .dev/
		ab=.dev/data/ab
		mkdir -p "$ab"
		awk -F, 'NR>1 && $7=="yes" && $6>0.2 && $6<2 {print $1, $2, $4}' "$SRC/mcs/mivia/expected.csv" | head -4 >"$ab/pairs.txt"
		while read -r g h _; do cp "$SRC/mcs/mivia/$g" "$SRC/mcs/mivia/$h" "$ab/"; done <"$ab/pairs.txt"
		cp "$SRC/vc/pace2019/vc-exact_001.gr" "$SRC/vc/pace2019/vc-exact_003.gr" "$SRC/vc/yamout2022/cop_hat300-2.txt" "$ab/"
		;;
	*)
		echo "usage: $0 --prepare checks|ab" >&2
		exit 2
		;;
	esac
	du -sh .dev
	exit 0
fi

if [ "${1:-}" = ab ]; then
	AB_TIMEOUT=${AB_TIMEOUT:-60s} scripts/gpu/devsearch-ab.sh .dev/arbor-before .dev/arbor .dev/data/ab
	exit
fi

# 1. Node counts: kernel | case | outputs, as TestSearchNodes prints them
# (the device's name left out), recorded on the CPU twin and PoCL at 74bc434.
want='clique_epoch | G(60,0.50), goal 8 | nodes=111 largest=8
clique_epoch | G(150,0.30), goal 6 | nodes=1466 largest=6
clique_epoch | G(90,0.75), goal 14 | nodes=209005 largest=17
kcount_epoch | G(40,0.50), k 4 | count=1099 nodes=834
kcount_epoch | G(130,0.30), k 5 | count=1294 nodes=4458
mcsplit_epoch | G(18,0.40) vs G(20,0.40), goal 11 | nodes=332665 largest=11
mcsplit_epoch | G(70,0.08) vs G(66,0.08), goal 63 | nodes=347120 largest=0
mcsplit_epoch | G(20,0.50) vs G(18,0.50), goal 11, min_product | nodes=336425 largest=11
vc_epoch | G(24,0.25) seed 1, k = opt−1 | nodes=11 found below opt=-1 found at opt=15
vc_epoch | G(36,0.15) seed 2, k = opt−1 | nodes=11 found below opt=-1 found at opt=20
vc_epoch | G(40,0.15) seed 3, k = opt−1 | nodes=47 found below opt=-1 found at opt=25
vc_epoch | G(64,0.30) seed 4, k = opt−1 | nodes=647 found below opt=-1 found at opt=51
vc_epoch | G(90,0.10) seed 5, k = opt−1 | nodes=1867 found below opt=-1 found at opt=60'
(cd tests && ARBOR_TEST_BACKENDS=cuda,opencl,cpu ../.dev/tests.test -test.run '^TestSearchNodes$' -test.v -test.timeout 20m) >.dev/wt-nodes.log 2>&1
status=0
for dev in $(grep -o 'NODES [^ ]* [a-z]*_epoch' .dev/wt-nodes.log | cut -d' ' -f2 | sort -u); do
	got=$(grep -F "NODES $dev " .dev/wt-nodes.log | grep -v vcls_epoch | sed "s/.*NODES [^ ]* //")
	if [ "$got" = "$want" ]; then
		echo "nodes on $dev: as before"
	else
		echo "nodes on $dev: DIFFER"
		diff <(echo "$want") <(echo "$got")
		status=1
	fi
done
grep -q 'NODES ' .dev/wt-nodes.log || { tail -20 .dev/wt-nodes.log; status=1; }

# 2. Device against twin, every check; the signature contract.
(cd tests && ../.dev/tests.test -test.run '^TestKernelChecks$' -test.timeout 30m) | tail -15 || status=1
(cd device/search && ../../.dev/device_search.test -test.run '^TestParams' -test.v) | tail -6 || status=1

exit $status
