#!/usr/bin/env bash
# Issue #36 on the GPU machine, in one call (about 9 minutes): the
# sub-group paths of the device engines on CUDA, NVIDIA's OpenCL (inline
# PTX: vote.sync.ballot, shfl.sync) and NVIDIA's OpenCL forced onto the
# work-group fallback (ARBOR_SUBGROUPS=fallback), and PoCL where installed.
#
#  1. `arbor devices` (the sub-group line of each device), then `arbor
#     verify` of the search kernels (the code the paths change: the search
#     layer's reductions and scans, clique's colouring) on every device of
#     every backend: verify runs each kernel on every path the device can
#     take ([cuda]/[fallback], [ptx]/[fallback]), against the Go twins'
#     fixed-goal node counts.
#  2. TestSubgroupOps (every arbor_sg_* operation against Go on each
#     device and path: CUDA's intrinsics, NVIDIA OpenCL's inline PTX, the
#     local-memory emulation) and the twins at 32 and 64 lanes, when the
#     test binaries are there.
#  3. Times, --engine gpu and --engine hybrid: mcs over SG_PAIRS (10)
#     medium MIVIA pairs (expected.csv, proven, original 5–8 s: about a
#     second each on the device), clique on the complements of frb30-15-1
#     and cop_hat500-3 (optima.csv's sizes are the complements', as in
#     clique.sh); each on cuda, ocl-ptx and ocl-fallback; sizes checked
#     against expected.csv / optima.csv, every result --verify'd.
#  4. A table: per workload and engine, the seconds on each path and
#     OpenCL's ratio to CUDA (the issue's target: ≤ 1.25).
#
# Here (Go is not on the GPU machine):
#   scripts/gpu/subgroups.sh --prepare
# builds .dev/arbor and the test binaries (scripts/build-dev.sh) and copies
# the data the runs read into .dev/data (carry .dev). On the GPU machine:
#   scripts/gpu/subgroups.sh
# SG_BUDGET (default 460 s) stops starting new runs past that many seconds,
# so the table is printed inside a 9-minute call; SG_PAIRS picks how many
# pairs; SG_NOVERIFY=1 skips step 1's verify, SG_QUICK=1 step 2;
# SG_CUDA_ARGS and SG_OCL_ARGS replace the device flags of the "cuda" and
# the OpenCL columns (a dry run without a GPU: "--backend cpu").
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=../shared/data
pairs=${SG_PAIRS:-10}
pick() { # the medium pairs: proven, original 5 to 8 s, every other one by time
	awk -F, 'NR>1 && $7=="yes" && $6>=5 && $6<=8 {print $6","$1","$2","$4}' "$1" | sort -t, -k1 -n | awk 'NR%2==1' | head -n "$pairs"
}

if [ "${1:-}" = --prepare ]; then
	scripts/build-dev.sh ./tests ./algorithms/clique/kernel ./algorithms/mcs/kernel ./algorithms/vertexcover/kernel || exit 1
	mkdir -p .dev/data/mcs/mivia .dev/data/clique .dev/data/vc/bhoslib .dev/data/vc/yamout2022
	cp "$SRC/mcs/mivia/expected.csv" .dev/data/mcs/mivia/
	pick "$SRC/mcs/mivia/expected.csv" | while IFS=, read -r _ a b _; do
		cp "$SRC/mcs/mivia/$a" "$SRC/mcs/mivia/$b" .dev/data/mcs/mivia/
	done
	cp "$SRC/clique/optima.csv" .dev/data/clique/
	cp "$SRC/vc/bhoslib/frb30-15-1.mis" .dev/data/vc/bhoslib/
	cp "$SRC/vc/yamout2022/cop_hat500-3.txt" .dev/data/vc/yamout2022/
	du -sh .dev
	exit 0
fi

ARBOR=${ARBOR:-.dev/arbor}
D=.dev/data
[ -d "$D" ] || D=$SRC
[ -x "$ARBOR" ] || { echo "subgroups.sh: $ARBOR not found (scripts/gpu/subgroups.sh --prepare)" >&2; exit 1; }
D=$(cd "$D" && pwd)
start=$SECONDS
budget=${SG_BUDGET:-460}
late() { [ $((SECONDS - start)) -ge "$budget" ]; }
field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
declare -a checks
check() { checks+=("$(printf '%-40s %s' "$1" "$2")"); }
export ARBOR_DATA=$D

echo "== devices"
"$ARBOR" devices 2>&1 | grep -v '^cuda *absent'
nvocl=$("$ARBOR" devices 2>/dev/null | awk '$1 ~ /^opencl:/ && /NVIDIA/ {sub("opencl:", "", $1); print $1; exit}')
pocl=$("$ARBOR" devices 2>/dev/null | awk '$1 ~ /^opencl:/ && /Portable Computing Language/ {sub("opencl:", "", $1); print $1; exit}')
echo "NVIDIA OpenCL device: ${nvocl:-none}; PoCL device: ${pocl:-none}"

# 1. verify: every kernel on every path of every device.
if [ -z "${SG_NOVERIFY:-}" ]; then
	for t in "cuda 0" ${nvocl:+"opencl $nvocl"} ${pocl:+"opencl $pocl"} "cpu 0"; do
		read -r b d <<<"$t"
		lim=100
		[ "$d" = "${pocl:-x}" ] && [ "$b" = opencl ] && lim=60
		out=$(timeout "$lim" "$ARBOR" verify --backend "$b" --device "$d" --kernel clique_epoch,mcsplit_epoch,vc_epoch,kcount_epoch 2>&1)
		rc=$?
		echo "$out" | grep -E '^(KERNEL|[a-z_0-9]+ +(cuda|opencl|cpu):)' | grep -v ' ok ' | head -20
		echo "$out" | tail -3
		check "verify $b:$d" "$(echo "$out" | grep -c ' ok ') rows ok, rc $rc $( [ $rc = 0 ] && echo ok || echo FAIL)"
	done
fi

# 2. the tests: every path's checks, the twins at 32 and 64 lanes.
if [ -z "${SG_QUICK:-}" ] && ! late; then
	for t in "tests TestSubgroupPaths|TestSubgroupOps tests" \
		"algorithms_clique_kernel TestCliqueTwinLanes algorithms/clique/kernel" \
		"algorithms_mcs_kernel TestMCSplitTwinLanes algorithms/mcs/kernel" \
		"algorithms_vertexcover_kernel TestVCTwinLanes algorithms/vertexcover/kernel"; do
		read -r bin run dir <<<"$t"
		[ -x ".dev/$bin.test" ] || { check "test $bin" "no binary"; continue; }
		if (cd "$dir" && ARBOR_TEST_BACKENDS=cuda,opencl,cpu timeout 60 "$OLDPWD/.dev/$bin.test" -test.run "^($run)\$" -test.v) >".dev/sg-$bin.log" 2>&1; then
			check "test $run" ok
		else
			grep -E -- '--- FAIL|Error|error' ".dev/sg-$bin.log" | head -10
			check "test $run" FAIL
		fi
	done
fi

# 3. times on each path.
M=$D/mcs/mivia
declare -A secs size
cudaargs=${SG_CUDA_ARGS:---backend cuda}
oclargs=${SG_OCL_ARGS:---backend opencl --device ${nvocl:-NVIDIA}}
paths=("cuda:$cudaargs" "ocl-ptx:$oclargs" "ocl-fallback:$oclargs")
run() { # label engine path args...
	local label=$1 engine=$2 path=$3
	shift 3
	local pargs env=()
	for p in "${paths[@]}"; do [ "${p%%:*}" = "$path" ] && pargs=${p#*:}; done
	[ "$path" = ocl-fallback ] && env=(ARBOR_SUBGROUPS=fallback)
	if late; then
		secs[$label/$engine/$path]=skip
		return
	fi
	local t0=$SECONDS out
	# shellcheck disable=SC2086
	out=$(env "${env[@]}" timeout 60 "$ARBOR" "$@" --engine "$engine" $pargs --json --verify --timeout 45s 2>/dev/null)
	local s n
	s=$(echo "$out" | field seconds)
	n=$(echo "$out" | field size)
	if [ -n "$s" ]; then
		s=$(awk -v s="$s" 'BEGIN { printf "%.3f", s }')
	else
		s="fail($((SECONDS - t0))s)"
	fi
	secs[$label/$engine/$path]=$s
	size[$label/$engine/$path]=${n:--}
}
declare -a work
while IFS=, read -r _ a b want; do
	l="${a%.A*}.${a##*.A}"
	work+=("$l|$want|mcs $M/$a $M/$b")
done < <(pick "$M/expected.csv")
work+=("frb30-15-1c|30|clique $D/vc/bhoslib/frb30-15-1.mis --complement")
work+=("hat500-3c|50|clique $D/vc/yamout2022/cop_hat500-3.txt --complement")
for engine in gpu hybrid; do
	for w in "${work[@]}"; do
		IFS='|' read -r label want cmd <<<"$w"
		read -r -a args <<<"$cmd"
		for p in cuda ocl-ptx ocl-fallback; do
			run "$label" "$engine" "$p" "${args[@]}"
			got=${size[$label/$engine/$p]:-}
			if [ -n "$got" ] && [ "$got" != - ] && [ "$got" != "$want" ]; then
				check "size $label $engine $p" "$got, want $want FAIL"
			fi
		done
		echo "$label $engine: cuda ${secs[$label/$engine/cuda]} ptx ${secs[$label/$engine/ocl-ptx]} fallback ${secs[$label/$engine/ocl-fallback]}"
	done
done

# 4. the table.
echo
printf '%-26s %-7s %9s %9s %9s %8s %8s\n' workload engine cuda ocl-ptx ocl-fb ptx/cuda fb/cuda
declare -A tot
for engine in gpu hybrid; do
	for w in "${work[@]}"; do
		label=${w%%|*}
		c=${secs[$label/$engine/cuda]} p=${secs[$label/$engine/ocl-ptx]} f=${secs[$label/$engine/ocl-fallback]}
		ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.2f", a / b; else printf "-" }'; }
		printf '%-26s %-7s %9.9s %9.9s %9.9s %8s %8s\n' "$label" "$engine" "$c" "$p" "$f" "$(ratio "$p" "$c")" "$(ratio "$f" "$c")"
		kind=mcs
		case $label in frb* | hat*) kind=clique ;; esac
		if [[ $c =~ ^[0-9.]+$ && $p =~ ^[0-9.]+$ && $f =~ ^[0-9.]+$ ]]; then
			for x in cuda:$c ptx:$p fb:$f; do
				k="$kind/$engine/${x%%:*}"
				tot[$k]=$(awk -v a="${tot[$k]:-0}" -v b="${x#*:}" 'BEGIN { printf "%.3f", a + b }')
			done
		fi
	done
done
for kind in mcs clique; do
	for engine in gpu hybrid; do
		c=${tot[$kind/$engine/cuda]:-0} p=${tot[$kind/$engine/ptx]:-0} f=${tot[$kind/$engine/fb]:-0}
		printf '%-26s %-7s %9s %9s %9s %8s %8s\n' "TOTAL $kind (all 3 ran)" "$engine" "$c" "$p" "$f" \
			"$(awk -v a="$p" -v b="$c" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }')" \
			"$(awk -v a="$f" -v b="$c" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }')"
	done
done
echo
for l in "${checks[@]}"; do echo "$l"; done
echo "elapsed $((SECONDS - start)) s"
