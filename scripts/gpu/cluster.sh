#!/usr/bin/env bash
# Issue 21 on the GPU machine: a standing cluster ('arbor server' on
# loopback and long-lived 'arbor worker' processes, as a user runs one)
# against one process, over the medium MIVIA pairs of mcsdev.sh (every
# MCS_STRIDE-th of those the original McSplit took 5–60 s on; 21 pairs by
# default). Only the coordinator's command is timed per pair (wall clock:
# reading the graphs, the job, the answer), the same way as the one-process
# command. Sizes are checked equal. Each phase gets a fresh server (a job
# run again is answered from its records). Phases:
#   cpu       4 workers × 4 threads, one task at a time each (--slots 1)
#   slots     4 workers × 4 tasks at a time of one thread each (the default)
#             both against 'arbor mcs --engine cpu --threads 16'
#   gpu       1 worker with the GPU and 15 threads on one task (--slots 1)
#   gpuslots  the same with 15 one-thread CPU tasks at a time
#             both against 'arbor mcs --engine hybrid' (the GPU and McSplit↓)
#   gpu1      1 worker with one GPU alone (--engine gpu --device 0)
#   gpu2      1 worker with every GPU alone (--engine gpu --device all)
#             both against 'arbor mcs --engine gpu' on the same devices
#
#   scripts/gpu/cluster.sh [PHASE...]     (default: cpu slots gpu gpuslots)
# Environment: MCS_STRIDE (8), CLUSTER_PAIRS (first graphs of named pairs
# instead, e.g. the large ones), CLUSTER_TASK_NODES (the job's --task-nodes),
# MCS_DATA (the pairs and expected.csv), ARBOR (.dev/arbor). Prints one row
# per pair and phase, then the sums.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARBOR=${ARBOR:-.dev/arbor}
SRC=../shared/data/mcs/mivia
D=${MCS_DATA:-.dev/data/mcs/mivia}
[ -f "$D/expected.csv" ] || D=$SRC
stride=${MCS_STRIDE:-8}
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(cpu slots gpu gpuslots)
export ARBOR_CACHE_DIR=${ARBOR_CACHE_DIR:-/tmp/arbor-cluster-cache}
export ARBOR_CLUSTER_TOKEN=bench-$$
pids=()
server=
store=
cleanup() { kill "${pids[@]}" $server 2>/dev/null; wait 2>/dev/null; rm -rf "$store"; }
trap cleanup EXIT
start_server() { # a fresh server and store on a new port
	[ -n "$server" ] && { kill $server; wait $server 2>/dev/null; rm -rf "$store"; }
	port=$((20000 + RANDOM % 20000))
	url=nats://127.0.0.1:$port
	store=$(mktemp -d)
	"$ARBOR" server --listen 127.0.0.1:$port --store "$store" 2>/dev/null &
	server=$!
	for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
}

pairs() {
	if [ -n "${CLUSTER_PAIRS:-}" ]; then # named pairs (first graphs), e.g. large ones
		for a in $CLUSTER_PAIRS; do awk -F, -v a="$a" '$1==a {print $1, $2, $4}' "$D/expected.csv"; done
		return
	fi
	awk -F, -v s="$stride" 'NR>1 && $7=="yes" && $6>=5 && $6<=60 { if (i++ % s == 0) print $1, $2, $4 }' "$D/expected.csv"
}
field() { grep -o "\"$1\": *[^,}]*" | head -1 | cut -d: -f2 | tr -d ' "'; }
# run LABEL ARGS...: one timed command; prints "size seconds tasks".
run() {
	local t0 t1 out
	t0=$(date +%s.%N)
	out=$("$ARBOR" mcs "$@" --json 2>>/tmp/arbor-cluster.err)
	t1=$(date +%s.%N)
	echo "$(field size <<<"$out") $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $(field tasks <<<"$out")"
}
start_workers() { # start_workers N ARGS...
	local n=$1
	shift
	for i in $(seq "$n"); do
		"$ARBOR" worker --cluster "$url" --name "w$i" "$@" 2>>/tmp/arbor-cluster.err &
		pids+=($!)
	done
	sleep 2 # connected, and the device open (CUDA takes about a second)
}
stop_workers() { kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; pids=(); }

declare -A sum once
rows=()
for phase in "${phases[@]}"; do
	start_server
	case $phase in
	cpu)
		local_args=(--engine cpu --threads 16)
		start_workers 4 --threads 4 --slots 1 --engine cpu
		;;
	slots)
		local_args=(--engine cpu --threads 16)
		start_workers 4 --threads 4 --engine cpu
		;;
	gpu)
		local_args=(--engine hybrid --backend cuda)
		start_workers 1 --threads 15 --slots 1 --engine hybrid --backend cuda
		;;
	gpuslots)
		local_args=(--engine hybrid --backend cuda)
		start_workers 1 --threads 15 --engine hybrid --backend cuda
		;;
	gpu1 | gpu2) # the GPUs alone: one, or every GPU of the machine
		devs=0
		[ "$phase" = gpu2 ] && devs=all
		local_args=(--engine gpu --backend cuda --device "$devs")
		start_workers 1 --engine gpu --backend cuda --device "$devs"
		;;
	*) echo "unknown phase $phase" >&2; exit 2 ;;
	esac
	extra=()
	[ -n "${CLUSTER_TASK_NODES:-}" ] && extra=(--task-nodes "$CLUSTER_TASK_NODES")
	while read -r g h size; do
		key="$g ${local_args[*]}"
		# The one-process run is the same for phases with the same engine.
		[ -n "${once[$key]:-}" ] || once[$key]=$(run "$D/$g" "$D/$h" "${local_args[@]}")
		read -r ls lt _ <<<"${once[$key]}"
		read -r cs ct tasks <<<"$(run "$D/$g" "$D/$h" --cluster "$url" "${extra[@]}")"
		check=ok
		[ "$ls" = "$size" ] && [ "$cs" = "$size" ] || check="SIZE MISMATCH (want $size)"
		rows+=("$(printf '%-8s %-22s size %3s  one process %8.3f s  cluster %8.3f s (%5s tasks)  ratio %5.2f  %s' \
			"$phase" "$g" "$cs" "$lt" "$ct" "$tasks" "$(awk -v a="$ct" -v b="$lt" 'BEGIN{printf "%.2f", a/b}')" "$check")")
		echo "${rows[-1]}"
		sum[$phase.one]=$(awk -v a="${sum[$phase.one]:-0}" -v b="$lt" 'BEGIN{print a+b}')
		sum[$phase.cluster]=$(awk -v a="${sum[$phase.cluster]:-0}" -v b="$ct" 'BEGIN{print a+b}')
	done < <(pairs)
	stop_workers
done
echo "== summary"
printf '%s\n' "${rows[@]}"
for phase in "${phases[@]}"; do
	printf '%-8s sum: one process %.2f s, cluster %.2f s, cluster/one %.3f\n' "$phase" "${sum[$phase.one]}" "${sum[$phase.cluster]}" \
		"$(awk -v a="${sum[$phase.cluster]}" -v b="${sum[$phase.one]}" 'BEGIN{print a/b}')"
done
