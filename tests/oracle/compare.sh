#!/usr/bin/env bash
# Compare package-level symbol IDs: go/types (tests/oracle, the oracle) vs docforge-go
# (crates/go/examples/ids.rs). Usage: tests/oracle/compare.sh [DIR]  (default: GOROOT/src)
# Both sides: linux/amd64, cgo off, tests excluded; see the header of main.go / ids.rs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${1:-$(go env GOROOT)/src}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS=-mod=mod go run . -root "$dir") >"$out/oracle.txt"
(cd "$repo" && cargo run --quiet --release -p docforge-go --example ids -- "$dir") >"$out/ours.txt"
comm -23 "$out/oracle.txt" "$out/ours.txt" >"$out/missing.txt"
comm -13 "$out/oracle.txt" "$out/ours.txt" >"$out/extra.txt"
echo "oracle: $(wc -l <"$out/oracle.txt")"
echo "ours:   $(wc -l <"$out/ours.txt")"
echo "missing (oracle only): $(wc -l <"$out/missing.txt")"
head -n 20 "$out/missing.txt" | sed 's/^/  - /'
echo "extra (ours only): $(wc -l <"$out/extra.txt")"
head -n 20 "$out/extra.txt" | sed 's/^/  + /'
[ ! -s "$out/missing.txt" ] && [ ! -s "$out/extra.txt" ]
