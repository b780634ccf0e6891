#!/usr/bin/env bash
# Build, here, everything the GPU machine runs (it has no Go): the CLI as
# .dev/arbor and one test binary per package with tests as
# .dev/<package path with / as _>.test (cuda.test, algorithms_mcs.test, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
mkdir -p .dev
go build -trimpath -ldflags "-X main.version=$(git describe --always --dirty 2>/dev/null || echo dev)" -o .dev/arbor ./cmd/arbor
for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
	rel=${pkg#github.com/arbor-gpu/arbor/}
	go test -c -o ".dev/${rel//\//_}.test" "$pkg"
done
cp -r scripts .dev/ 2>/dev/null || true
ls -la .dev
