#!/usr/bin/env bash
# Issue 34: a chaos run of the cluster on one machine. 'arbor server' on
# loopback with coordinator and worker tokens, 8 'arbor worker' processes
# (2 threads each on 16 cores), and medium MIVIA pairs (proven, the
# original McSplit took 1-60 s; 100 by default, spread evenly over that
# range) submitted as jobs, CHAOS_JOBS at a time. Two phases on fresh
# servers:
#   chaos  a random worker SIGKILLed every 5 s and started again
#   calm   the same pairs, no kills
# Every answer is checked against expected.csv and must be proven. The last
# lines are a short table: pairs, wrong, unproven, wall time, the sum of the
# jobs' times, kills, and the chaos phase's overhead against the calm one.
#
#   scripts/gpu/cluster-chaos.sh DATA_DIR [BINARY]
#
# DATA_DIR holds the MIVIA pairs and expected.csv (e.g. .dev/data/mcs/mivia);
# BINARY defaults to .dev/arbor (built with CGO_ENABLED=0; no Go is
# needed here). Environment: CHAOS_PAIRS (100), CHAOS_JOBS (4 coordinators
# at once), CHAOS_WORKERS (8), CHAOS_THREADS (2 per worker), CHAOS_EVERY (5 s
# between kills), CHAOS_BUDGET (200 s per phase: pairs not started by then
# are skipped, and said so; both phases then take at most about 7 minutes),
# CHAOS_TIMEOUT (120 s per job), CHAOS_WORKER_ARGS (extra 'arbor worker'
# flags, e.g. --engine cpu), CHAOS_MINSEC/CHAOS_MAXSEC (1/60: the
# original McSplit times picked), CHAOS_KEEP (a folder to copy the logs
# and results to).
set -uo pipefail
D=${1:?usage: cluster-chaos.sh DATA_DIR [BINARY]}
ARBOR=${2:-.dev/arbor}
[ -f "$D/expected.csv" ] || { echo "no $D/expected.csv" >&2; exit 2; }
[ -x "$ARBOR" ] || { echo "no executable $ARBOR" >&2; exit 2; }
ARBOR=$(cd "$(dirname "$ARBOR")" && pwd)/$(basename "$ARBOR")
npairs=${CHAOS_PAIRS:-100}
njobs=${CHAOS_JOBS:-4}
minsec=${CHAOS_MINSEC:-1}
maxsec=${CHAOS_MAXSEC:-60}
nworkers=${CHAOS_WORKERS:-8}
threads=${CHAOS_THREADS:-2}
every=${CHAOS_EVERY:-5}
budget=${CHAOS_BUDGET:-200}
timeout=${CHAOS_TIMEOUT:-120}
# Extra worker flags. With none, 'arbor worker' picks its engine: on a GPU
# machine every worker opens the GPU (engine auto is hybrid there) and
# its device slot takes batches of up to 64 tasks; --engine cpu leaves it
# out.
wargs=${CHAOS_WORKER_ARGS:-}
work=$(mktemp -d)
export COORD=coord-$$-$RANDOM WORKER=worker-$$-$RANDOM
server= ; killer=
cleanup() {
	[ -n "$killer" ] && kill "$killer" 2>/dev/null
	stop_workers
	[ -n "$server" ] && kill "$server" 2>/dev/null
	wait 2>/dev/null
	[ -n "${CHAOS_KEEP:-}" ] && mkdir -p "$CHAOS_KEEP" && cp -r "$work"/. "$CHAOS_KEEP"/
	rm -rf "$work"
}
trap cleanup EXIT

# The pairs: proven, 1-60 s originally, npairs of them evenly spread.
awk -F, -v lo="$minsec" -v m="$maxsec" 'NR>1 && $7=="yes" && $6>=lo && $6<=m {print $6, $1, $2, $4}' "$D/expected.csv" | sort -n >"$work/all"
total=$(wc -l <"$work/all")
awk -v n="$npairs" -v t="$total" 'BEGIN{if (n>t) n=t} {if (NR-1 >= next_i*t/n && taken < n) {print $2, $3, $4; taken++; next_i++}}' "$work/all" >"$work/pairs"
echo "chaos: worker flags: --threads $threads ${wargs:-(engine auto: hybrid on a GPU)}"
echo "chaos: $(wc -l <"$work/pairs") pairs (of $total proven with $minsec-$maxsec s), $nworkers workers x $threads threads, $njobs jobs at a time, a kill every ${every}s, budget ${budget}s per phase"

start_worker() { # start_worker I: (re)start worker I; its pid goes to $work/pid.I
	# in a subshell: no job-control notice when it is killed
	(
		ARBOR_CLUSTER_TOKEN=$WORKER "$ARBOR" worker --cluster "$URL" --threads "$threads" --key "$keys/w$1.key" $wargs >>"$work/worker$1.log" 2>&1 &
		echo $! >"$work/pid.$1"
	)
}
stop_workers() {
	local f
	for f in "$work"/pid.*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
	rm -f "$work"/pid.*
}

# one pair as a job: prints "g expected size proven seconds". --fresh: a
# job stopped by the timeout is cancelled and its queued tasks purged;
# without it they stay queued for the job's lease (1 min), for a rerun to
# resume, ahead of every later job (one timed-out job made the next ones
# time out too).
solve() {
	local g=$1 h=$2 want=$3 out
	out=$(ARBOR_CLUSTER_TOKEN=$COORD timeout $((timeout + 10)) "$ARBOR" mcs "$D/$g" "$D/$h" --cluster "$URL" --fresh --timeout "${timeout}s" --json 2>>"$work/coord.log")
	local size proven secs
	size=$(grep -o '"size": *[0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$')
	proven=$(grep -o '"proven": *[a-z]*' <<<"$out" | head -1 | grep -o '[a-z]*$')
	secs=$(grep -o '"seconds": *[0-9.e+-]*' <<<"$out" | head -1 | sed 's/.*: *//')
	echo "$g $want ${size:--1} ${proven:-false} ${secs:-0}"
}
export -f solve
export D ARBOR timeout work

# A result line is "g expected size proven seconds". wrong: a proven size
# other than the optimum, or any size above it (a mapping larger than the
# maximum would be a checker failure); unproven: a size at most the
# optimum, not proven (the job timed out); failed: no answer at all.
classify='{c = "ok"; if ($3 < 0) c = "failed"; else if ($3 > $2 || ($4 == "true" && $3 != $2)) c = "wrong"; else if ($4 != "true") c = "unproven"}'
count() { # count CLASS RESULTS
	awk -v want="$1" "$classify"' c == want {n++} END {print n+0}' "$2"
}

phase() { # phase NAME KILL(0|1)
	local name=$1 kill=$2
	local port=$((20000 + RANDOM % 20000))
	URL=nats://127.0.0.1:$port
	export URL
	mkdir -p "$work/$name"
	"$ARBOR" server --listen 127.0.0.1:$port --store "$work/$name/store" --coordinator-token "$COORD" --worker-token "$WORKER" 2>>"$work/server.log" &
	server=$!
	for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
	# Each worker signs with a key of its own (issue 43), minted here.
	keys=$work/$name/keys
	mkdir -p "$keys"
	for i in $(seq 0 $((nworkers - 1))); do
		ARBOR_CLUSTER_TOKEN=$COORD "$ARBOR" jobs add-worker "w$i" -o "$keys/w$i.key" --cluster "$URL" >/dev/null || echo "add-worker w$i failed" >&2
	done
	for i in $(seq 0 $((nworkers - 1))); do start_worker "$i"; done
	echo 0 >"$work/$name/kills"
	if [ "$kill" = 1 ]; then
		(
			n=0
			while sleep "$every"; do
				i=$((RANDOM % nworkers))
				kill -9 "$(cat "$work/pid.$i")" 2>/dev/null
				start_worker "$i"
				n=$((n + 1))
				echo $n >"$work/$name/kills"
			done
		) &
		killer=$!
	fi
	local t0=$SECONDS deadline=$((SECONDS + budget))
	# Pairs are handed out, njobs at a time, while the budget lasts.
	local spids=() skipped=0
	running() { local n=0 p; for p in "${spids[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo $n; }
	touch "$work/$name/results"
	while read -r g h want; do
		[ $SECONDS -ge $deadline ] && { skipped=$((skipped + 1)); continue; }
		while [ "$(running)" -ge "$njobs" ]; do sleep 0.2; done
		solve "$g" "$h" "$want" >>"$work/$name/results" &
		spids+=($!)
	done <"$work/pairs"
	[ $skipped -gt 0 ] && echo "phase $name: the budget ran out: $skipped pairs not started"
	for p in "${spids[@]}"; do wait "$p"; done
	wait_jobs=$((SECONDS - t0))
	[ -n "$killer" ] && { kill "$killer" 2>/dev/null; wait "$killer" 2>/dev/null; killer=; }
	stop_workers
	kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; server=
	echo "$wait_jobs" >"$work/$name/wall"
	echo "phase $name: $(wc -l <"$work/$name/results") jobs, $(count wrong "$work/$name/results") wrong, $(count unproven "$work/$name/results") unproven, $(count failed "$work/$name/results") failed, ${wait_jobs}s, $(cat "$work/$name/kills") kills"
	awk "$classify"' $0 != "" && c != "ok" {print "  " toupper(c), $0}' "$work/$name/results"
}

phase chaos 1
phase calm 0

echo
echo "coordinator log lines: $(wc -l <"$work/coord.log") (hand-backs: $(grep -c 'handed its task' "$work/coord.log"), of them on a restart: $(grep -c 'restarted under its name' "$work/coord.log"); live workers heard again after a hand-back: $(grep -c 'heard again' "$work/coord.log"))"
printf '%-6s %6s %6s %9s %7s %8s %10s %6s\n' phase pairs wrong unproven failed wall_s sum_jobs_s kills
for name in chaos calm; do
	r=$work/$name/results
	printf '%-6s %6d %6d %9d %7d %8d %10.1f %6d\n' "$name" "$(wc -l <"$r")" "$(count wrong "$r")" \
		"$(count unproven "$r")" "$(count failed "$r")" "$(cat "$work/$name/wall")" "$(awk '{s+=$5} END {print s+0}' "$r")" "$(cat "$work/$name/kills")"
done
# Overhead over the pairs both phases finished.
awk 'NR==FNR {c[$1]=$5; next} ($1 in c) {a+=c[$1]; b+=$5; n++} END {if (b > 0) printf "overhead of kills: %+.1f%% (sum of job times over %d pairs both phases ran: %.1f s chaos, %.1f s calm)\n", 100*(a/b-1), n, a, b}' \
	"$work/chaos/results" "$work/calm/results"
