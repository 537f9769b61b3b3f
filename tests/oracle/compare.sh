#!/usr/bin/env bash
# Compare DocForge with go/types on a directory tree (default: GOROOT/src).
#
#   tests/oracle/compare.sh [--calls|--implements|--cha [--std-only]|--engine-cha [--std-only]|--validate-sample] [DIR]
#
# Default: package-level symbol IDs (tests/oracle vs the engine's published graph, through
# crates/db/examples/symbol_ids.rs: discovery, salsa queries and graph assembly included).
# DOCFORGE_ORACLE_SIDE=go-crate compares with crates/go/examples/ids instead.
# --calls: syntax-resolved `calls` edges to package-level funcs (caller -> callee) instead.
# --implements: `<T id> <I id> value|pointer` pairs (oracle -implements vs the engine's
# published `implements` edges, symbol_ids --implements; DOCFORGE_ORACLE_SIDE=go-crate uses
# crates/go/examples/implements, which loads standard-library imports outside DIR from
# GOROOT), also reported without cmd/ (std only).
# --cha: precise call resolution (oracle -cha: go/ssa + callgraph/cha, vs
# crates/go/examples/calls) scored by cha_compare.py against its goals; --std-only
# skips DIR/cmd on both sides. On fixtures (a DIR under fixtures/) every bar must be 100%.
# --engine-cha: the engine's published precise call graph (symbol_ids --cha) against the same
# oracle, at the level validation reads it (engine_cha.py: no wrong pass, no wrong fail).
# --validate-sample: bindings sampled from both oracles (std packages), evaluated by the real
# `gograph validate` against `gograph build --precise` of a temporary copy of DIR
# (validate_sample.py: no pass or fail the oracles contradict).
# DOCFORGE_ORACLE_UNKNOWN_OK=1 with --implements: a pair missing from the engine's
# `implements` edges passes when the engine marks it `implements_unknown` (a tree whose
# method signatures name types from modules outside it) or marks its interface
# `underlying = unresolved` (`type E fmt.Stringer`: maybe an interface).
# Both sides: linux/amd64, cgo off, tests excluded; see the headers of main.go / calls.go
# and crates/go/examples/ids/*.rs. Exit status 0 iff missing = extra = 0.
set -euo pipefail
mode=ids
case "${1:-}" in
--calls)
	mode=calls
	shift
	;;
--implements)
	mode=implements
	shift
	;;
--cha)
	mode=cha
	shift
	;;
--engine-cha)
	mode=engine-cha
	shift
	;;
--validate-sample)
	mode=validate-sample
	shift
	;;
esac
std_only=()
if [ "${1:-}" = --std-only ]; then
	std_only=(--std-only)
	shift
fi
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="$(cd "${1:-$(go env GOROOT)/src}" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The oracle runs with a copy of its go.mod/go.sum: a tree whose packages import modules
# (golang.org/x/mod, …) makes `go list` add requirements, which must not edit the repository.
cp "$here/go.mod" "$out/oracle.mod"
cp "$here/go.sum" "$out/oracle.sum"
oracle_goflags="-mod=mod -modfile=$out/oracle.mod"
oracle_flags=()
ours_flags=()
if [ "$mode" != ids ]; then
	oracle_flags=("-$mode")
	ours_flags=("--$mode")
fi
if [ "$mode" = validate-sample ]; then
	(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$oracle_goflags" go run . -implements -root "$dir") >"$out/implements.txt"
	(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$oracle_goflags" go run . -cha -std-only -root "$dir") >"$out/cha.txt"
	(cd "$repo" && cargo build --quiet --release -p docforge-cli --bin gograph)
	gograph="${CARGO_TARGET_DIR:-$repo/target}/release/gograph"
	cp -rL "$dir" "$out/tree"
	"$gograph" build --repo "$out/tree" --precise >/dev/null
	echo "mode: validate-sample, tree: $dir"
	python3 "$here/validate_sample.py" "$gograph" "$out/tree" "$out/implements.txt" "$out/cha.txt" 10 || exit 1
	exit 0
fi
if [ "$mode" = engine-cha ]; then
	(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$oracle_goflags" go run . -cha ${std_only[@]/--std-only/-std-only} -root "$dir") >"$out/oracle.txt"
	(cd "$repo" && cargo run --quiet --release -p docforge-db --example symbol_ids -- "$dir" --cha) >"$out/ours.txt"
	echo "mode: engine-cha, tree: $dir"
	python3 "$here/engine_cha.py" "$out/oracle.txt" "$out/ours.txt" "${std_only[@]}" || exit 1
	exit 0
fi
if [ "$mode" = cha ]; then
	(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$oracle_goflags" go run . -cha ${std_only[@]/--std-only/-std-only} -root "$dir") >"$out/oracle.txt"
	(cd "$repo" && cargo run --quiet --release -p docforge-go --example calls -- "$dir" "${std_only[@]}" --time) >"$out/ours.txt"
	strict=()
	case "$dir" in "$repo"/fixtures/*) strict=(--strict) ;; esac
	python3 "$here/cha_compare.py" "$out/oracle.txt" "$out/ours.txt" "${strict[@]}" || exit 1
	exit 0
fi
(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS="$oracle_goflags" go run . "${oracle_flags[@]}" -root "$dir") >"$out/oracle.txt"
if [ "$mode" = implements ] && [ "${DOCFORGE_ORACLE_SIDE:-engine}" = go-crate ]; then
	(cd "$repo" && cargo run --quiet --release -p docforge-go --example implements -- "$dir" --time --goroot "$(go env GOROOT)") >"$out/ours.txt"
elif [ "${DOCFORGE_ORACLE_SIDE:-engine}" = go-crate ]; then
	(cd "$repo" && cargo run --quiet --release -p docforge-go --example ids -- "$dir" "${ours_flags[@]}") >"$out/ours.txt"
else
	(cd "$repo" && DOCFORGE_IMPLEMENTS_UNKNOWN="$out/unknown.txt" cargo run --quiet --release -p docforge-db --example symbol_ids -- "$dir" "${ours_flags[@]}") >"$out/ours.txt"
fi
comm -23 "$out/oracle.txt" "$out/ours.txt" >"$out/missing.txt"
if [ "$mode" = implements ] && [ "${DOCFORGE_ORACLE_UNKNOWN_OK:-}" = 1 ] && [ -f "$out/unknown.txt" ]; then
	# A pair the engine marks `implements_unknown` (a method signature names a type from
	# outside the project), or whose interface the engine marks as maybe an interface (`*
	# <id>`: its underlying type is unresolved), is not an answer: it may be missing, never wrong.
	awk 'NR == FNR { if ($1 == "*") maybe[$2] = 1; else unknown[$1 " " $2] = 1; next } !(($1 " " $2) in unknown) && !($2 in maybe)' \
		"$out/unknown.txt" "$out/missing.txt" >"$out/uncovered.txt"
	echo "missing but marked implements_unknown: $(($(wc -l <"$out/missing.txt") - $(wc -l <"$out/uncovered.txt")))"
	mv "$out/uncovered.txt" "$out/missing.txt"
fi
comm -13 "$out/oracle.txt" "$out/ours.txt" >"$out/extra.txt"
echo "mode: $mode, tree: $dir"
echo "oracle: $(wc -l <"$out/oracle.txt")"
echo "ours:   $(wc -l <"$out/ours.txt")"
echo "missing (oracle only): $(wc -l <"$out/missing.txt")"
head -n 20 "$out/missing.txt" | sed 's/^/  - /'
echo "extra (ours only): $(wc -l <"$out/extra.txt")"
head -n 20 "$out/extra.txt" | sed 's/^/  + /'
if [ "$mode" = implements ]; then
	not_cmd() { grep -v -e '^cmd/' -e ' cmd/' "$1" || true; }
	echo "std only (no cmd/): oracle $(not_cmd "$out/oracle.txt" | wc -l), ours $(not_cmd "$out/ours.txt" | wc -l)," \
		"missing $(not_cmd "$out/missing.txt" | wc -l), extra $(not_cmd "$out/extra.txt" | wc -l)"
fi
[ ! -s "$out/missing.txt" ] && [ ! -s "$out/extra.txt" ]
