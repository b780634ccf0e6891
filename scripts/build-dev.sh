#!/usr/bin/env bash
# Build, here, everything the GPU machine runs (it has no Go): the CLI as
# .dev/arbor and one test binary per package with tests as
# .dev/<package path with / as _>.test (cuda.test, algorithms_mcs.test, ...).
#
#   scripts/build-dev.sh               the CLI and every package with tests
#   scripts/build-dev.sh ./cuda ./tests  the CLI and just those packages
#
# A package that fails to build (another helper mid-edit) is reported and
# skipped; the others are still built. The exit status is 1 if any failed.
# Test binaries are built with -tags measure (BUILD_TAGS overrides).
# Binaries are stripped of symbol tables and DWARF (-s -w; stack traces keep
# their function names): the device tool carries at most 64 MiB, working
# tree included, and unstripped the full set is over 70 MiB.
set -uo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
mkdir -p .dev
# Test binaries include the measurement harnesses (//go:build measure),
# which the GPU rounds run; BUILD_TAGS= builds without them.
tags=${BUILD_TAGS-measure}
failed=()
if ! go build -trimpath -ldflags "-s -w -X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" -o .dev/arbor ./cmd/arbor; then
	failed+=(cmd/arbor)
fi
pkgs=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "${@:-./...}" 2>/dev/null)
for pkg in $pkgs; do
	rel=${pkg#github.com/arbor-gpu/arbor/}
	if ! go test -c -tags "$tags" -trimpath -ldflags "-s -w" -o ".dev/${rel//\//_}.test" "$pkg"; then
		failed+=("$rel")
	fi
done
rm -rf .dev/scripts
cp -r scripts .dev/ 2>/dev/null || true
ls -la .dev
du -sh .dev
if [ ${#failed[@]} -gt 0 ]; then
	echo "build-dev: FAILED to build: ${failed[*]}" >&2
	exit 1
fi
