#!/usr/bin/env bash
# Vertex cover's device engine on the GPU machine (issue 16): first the
# vc_epoch conformance checks on every device (`arbor verify --kernel
# vc_epoch`: with k = optimum − 1 the node counts must equal the CPU twin's
# on CUDA, NVIDIA OpenCL and PoCL), then `arbor vc --engine cpu|gpu|hybrid
# --json --verify` over the Yamout graphs and a few PACE instances, and a
# table last: graph, optimum, size found, proven, seconds per engine.
# Needs .dev/arbor (scripts/build-dev.sh) and the data in .dev/data/vc
# (`scripts/gpu/vcdev.sh --copy-data`, run here, copies what it uses from
# ../shared/data/vc; scripts/gpu/vc.sh's FILES list holds it too).
# About 5 minutes at most. VC_ENGINES="cpu gpu hybrid" picks the engines,
# VC_BACKEND the device's backend (cuda), VC_TIMEOUT each run's limit (20s).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
SRC=../shared/data/vc
DATA=${ARBOR_DATA:-.dev/data}/vc
YAMOUT="cop_hat300_1:292 cop_hat300-2:275 cop_hat300-3:264 cop_hat500-1:491 cop_hat500-2:464 cop_hat500-3:450 Power-Grid:2203 formated_maayan-figeys:316 formated_maayan-vidal:1077"
PACE=${VC_PACE:-"005:129 019:130 035:133 037:131 111:420"}
# VC_PACE=all: every PACE public instance with at most 450 vertices, and
# VC_SETS picks the sets to run (default "yamout pace"; also "frb30": the
# five frb30-15 instances).
if [ "$PACE" = all ]; then
	PACE="005:129 019:130 031:136 035:133 037:131 041:139 043:139 045:137 047:140 049:136 051:140 053:139 055:134 057:142
		059:137 061:135 063:138 065:138 067:143 069:140 071:136 073:139 077:137 081:141 083:144 091:145 093:143 111:420"
fi
read -r -a sets <<<"${VC_SETS:-yamout pace}"
if [ "${1:-}" = --copy-data ]; then
	mkdir -p .dev/data/vc/yamout2022 .dev/data/vc/pace2019
	for x in $YAMOUT; do cp "$SRC/yamout2022/${x%%:*}.txt" .dev/data/vc/yamout2022/; done
	for x in $PACE; do cp "$SRC/pace2019/vc-exact_${x%%:*}.gr" .dev/data/vc/pace2019/; done
	mkdir -p .dev/data/vc/bhoslib
	for i in 1 2 3 4 5; do gzip -c "$SRC/bhoslib/frb30-15-$i.mis" >.dev/data/vc/bhoslib/frb30-15-$i.mis.gz; done
	du -sh .dev/data/vc
	exit 0
fi
[ -x "$BIN" ] || { echo "vcdev.sh: $BIN not found (build it with scripts/build-dev.sh)" >&2; exit 1; }
read -r -a engines <<<"${VC_ENGINES:-cpu gpu hybrid}"
backend=${VC_BACKEND:-cuda}
cap=${VC_TIMEOUT:-20s}
echo "vcdev.sh: $(nproc) cores, engines ${engines[*]} on $backend, $cap per run"
"$BIN" devices || true
echo
vrc=0
if [ -z "${VC_NO_VERIFY:-}" ]; then
	echo "== vc_epoch conformance (k = opt−1 node counts against the CPU twin)"
	timeout 300 "$BIN" verify --kernel vc_epoch
	vrc=$?
	echo "verify rc=$vrc"
	echo
fi

field() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
rows=()
fail=0
run() { # file optimum
	local f=$1 opt=$2 row
	row="$(basename "$f")|$opt"
	for e in "${engines[@]}"; do
		if [ ! -f "$f" ]; then row+="|missing|-|-"; continue; fi
		local opt_args=(--engine "$e")
		[ "$e" = cpu ] || opt_args+=(--backend "$backend")
		local out size proven secs
		out=$("$BIN" vc "$f" "${opt_args[@]}" --json --verify --timeout "$cap" 2>/dev/null)
		size=$(field size <<<"$out")
		proven=$(field proven <<<"$out")
		secs=$(field seconds <<<"$out")
		if [ -z "$size" ]; then
			size=error
			fail=1
			echo "$(basename "$f") $e: $("$BIN" vc "$f" "${opt_args[@]}" --json --timeout "$cap" 2>&1 | tail -n 2)" >&2
		elif [ "$proven" = true ] && [ "$size" != "$opt" ]; then
			size="$size≠$opt"
			fail=1
		fi
		row+="|$size|${proven:--}|$(printf '%.3f' "${secs:-0}")"
		echo "$(basename "$f") $e: size $size proven $proven ${secs}s engine $(field engine <<<"$out") epochs $(field epochs <<<"$out")" >&2
	done
	rows+=("$row")
}
for set in "${sets[@]}"; do
	case $set in
	yamout) for x in $YAMOUT; do run "$DATA/yamout2022/${x%%:*}.txt" "${x##*:}"; done ;;
	pace) for x in $PACE; do run "$DATA/pace2019/vc-exact_${x%%:*}.gr" "${x##*:}"; done ;;
	frb30) for i in 1 2 3 4 5; do run "$DATA/bhoslib/frb30-15-$i.mis.gz" 420; done ;;
	esac
done

echo
printf '%-28s %7s' graph optimum
for e in "${engines[@]}"; do printf ' | %-8s %6s %8s' "$e" proven seconds; done
echo
for r in "${rows[@]}"; do
	IFS='|' read -r -a c <<<"$r"
	printf '%-28s %7s' "${c[0]}" "${c[1]}"
	for ((i = 2; i < ${#c[@]}; i += 3)); do printf ' | %-8s %6s %8s' "${c[i]}" "${c[i+1]}" "${c[i+2]}"; done
	echo
done
[ "$vrc" -eq 0 ] || fail=1
exit $fail
