#!/usr/bin/env bash
# One GPU call for issue 35 (build here first: scripts/build-dev.sh with the
# packages below, the data copies of startup.sh / auto-vc-clique.sh /
# batch pairs into .dev/data, and the two large binaries gzipped to fit the
# carry limit). Modes: tests (start-up phases, trivial pair, the device
# tests of the new code on CUDA), table (24 medium pairs), batch, vcclique.
# Full logs go to $OUT (or /tmp); a short summary is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp}
for z in .dev/*.gz; do [ -e "$z" ] && gunzip -f "$z"; done
D=.dev/data/mcs/mivia
for mode in "$@"; do
	case $mode in
	tests)
		scripts/gpu/startup.sh startup "$D" >"$OUT/startup.log" 2>&1
		tail -45 "$OUT/startup.log"
		for spec in algorithms/mcs:'Auto|Floor|PairsOf|DeviceBruteForce' algorithms/clique:'Auto' algorithms/vertexcover:'Auto' device/search:'Opening' cmd/arbor:'Batch|Against|VCAuto|CliqueAuto|VCOpening'; do
			pkg=${spec%%:*} run=${spec#*:}
			bin=$PWD/.dev/${pkg//\//_}.test
			(cd "$pkg" && "$bin" -test.run "$run" -test.count=1 -test.v) >"$OUT/test_${pkg//\//_}.log" 2>&1
			echo "test $pkg ($run): rc=$? $(grep -c -- '--- PASS' "$OUT/test_${pkg//\//_}.log") pass, $(grep -c -- '--- FAIL' "$OUT/test_${pkg//\//_}.log") fail, $(grep -c -- '--- SKIP' "$OUT/test_${pkg//\//_}.log") skip; cuda runs: $(grep -c -- '--- PASS: .*[/]cuda' "$OUT/test_${pkg//\//_}.log")"
			grep -A5 -- '--- FAIL' "$OUT/test_${pkg//\//_}.log" | head -20
		done
		;;
	table)
		scripts/gpu/startup.sh table "$D" >"$OUT/table.log" 2>&1
		tail -40 "$OUT/table.log"
		;;
	batch)
		scripts/gpu/batch.sh "$D" >"$OUT/batch.log" 2>&1
		tail -25 "$OUT/batch.log"
		;;
	vcclique)
		scripts/gpu/auto-vc-clique.sh .dev/data >"$OUT/vcclique.log" 2>&1
		tail -40 "$OUT/vcclique.log"
		;;
	esac
done
