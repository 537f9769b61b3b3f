#!/usr/bin/env bash
# Editor navigation against go/types on a real tree: a copy of $(go env GOROOT)/src/go (the
# go/ast, go/types, … packages, as module std), test files included (type-checked as `go
# test` builds their packages). Every identifier use and every struct field and interface
# method use the engine records (precise analysis) must be one go/types records; the recall
# must stay at least DOCFORGE_NAV_MIN_RECALL (default 0.99). The standard-library packages
# outside the copy (fmt, strings, …) are read from the machine's GOROOT, as the language
# server reads them: their names, their types' methods, fields and interface methods
# (`-uses -std`, `-fields -std`).
set -euo pipefail
cd "$(dirname "$0")"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -r "$(go env GOROOT)/src/go" "$tree/go"
printf 'module std\n' > "$tree/go.mod"
CGO_ENABLED=0 go run . -uses -tests -std -root "$tree" > "$tree.uses"
CGO_ENABLED=0 go run . -fields -tests -std -root "$tree" > "$tree.fields"
trap 'rm -rf "$tree" "$tree.uses" "$tree.fields" "$tree.log"' EXIT
min=${DOCFORGE_NAV_MIN_RECALL:-0.99}
cd ../..
run() { # NAME ENV... : the test's summary, or all of its output when it fails
  local name=$1 log="$tree.log"
  shift
  if env "$@" cargo test -q -p docforge-db --test "$name" -- --ignored --nocapture >"$log" 2>&1; then
    grep -E "recorded" "$log"
  else
    cat "$log"
    exit 1
  fi
}
run uses_oracle DOCFORGE_USES_ROOT="$tree" DOCFORGE_USES_ORACLE="$tree.uses" DOCFORGE_USES_PRECISE=1 \
  DOCFORGE_USES_TESTS=1 DOCFORGE_USES_GOROOT="$(go env GOROOT)" DOCFORGE_USES_MIN_RECALL="$min"
run fields_oracle DOCFORGE_FIELDS_ROOT="$tree" DOCFORGE_FIELDS_ORACLE="$tree.fields" DOCFORGE_FIELDS_TESTS=1 \
  DOCFORGE_FIELDS_GOROOT="$(go env GOROOT)" DOCFORGE_FIELDS_MIN_RECALL="$min"

# A module with dependencies: a copy of this oracle (it requires golang.org/x/tools, in the
# module cache once `go run .` has built it); uses of the required modules' names, methods
# and fields are read from the module cache, as the language server reads them (`-deps`).
mod=$(mktemp -d)
trap 'rm -rf "$tree" "$tree.uses" "$tree.fields" "$tree.log" "$mod" "$mod.uses"' EXIT
cp tests/oracle/*.go tests/oracle/go.mod tests/oracle/go.sum "$mod/"
(cd tests/oracle && CGO_ENABLED=0 go run . -uses -std -deps -root "$mod" > "$mod.uses")
run uses_oracle DOCFORGE_USES_ROOT="$mod" DOCFORGE_USES_ORACLE="$mod.uses" DOCFORGE_USES_PRECISE=1 \
  DOCFORGE_USES_GOROOT="$(go env GOROOT)" DOCFORGE_USES_GOMODCACHE="$(go env GOMODCACHE)" DOCFORGE_USES_MIN_RECALL="$min"
