#!/usr/bin/env bash
# BHOSLIB on the GPU machine, instance by instance, with and without the
# device's partition local search (arbor vc --ls-device): one line per run
# with the cover, proven or not, seconds, and what the device did.
#
#   scripts/gpu/bhoslib-ls.sh 55s "on off" 53-24-1 59-26-2 …   (instances)
#   scripts/gpu/bhoslib-ls.sh 55s on 50-23                      (families)
#
# Data: .dev/data/vc/bhoslib/frb*.mis.gz (see bhoslib.sh); ARBOR_BIN picks
# the CLI (default .dev/arbor); extra arbor flags in VC_FLAGS.
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${ARBOR_BIN:-.dev/arbor}
DATA=${ARBOR_DATA:-$PWD/.dev/data}
cap=${1:-55s}
modes=${2:-on}
shift 2 || true
echo "bhoslib-ls.sh: $(nproc) cores, cap $cap, modes $modes"
printf '%-12s %-4s %6s %6s %7s  %s\n' instance ls cover proven seconds ls_device
for x in "$@"; do
	case $x in
	*-*-*) list=$x ;;
	*) list="$x-1 $x-2 $x-3 $x-4 $x-5" ;;
	esac
	for inst in $list; do
		f="$DATA/vc/bhoslib/frb$inst.mis.gz"
		[ -f "$f" ] || f=${f%.gz}
		for mode in $modes; do
			out=$("$BIN" vc "$f" --json --verify --timeout "$cap" --ls-device "$mode" ${VC_FLAGS:-} 2>/dev/null)
			size=$(grep -o '"size":[0-9-]*' <<<"$out" | cut -d: -f2)
			proven=$(grep -o '"proven":[a-z]*' <<<"$out" | cut -d: -f2)
			secs=$(grep -o '"seconds":[0-9.]*' <<<"$out" | cut -d: -f2)
			dev=$(grep -o '"ls_device":"[^"]*"' <<<"$out" | cut -d'"' -f4)
			printf '%-12s %-4s %6s %6s %7.2f  %s\n' "frb$inst" "$mode" "$size" "$proven" "${secs:-0}" "$dev"
		done
	done
done
