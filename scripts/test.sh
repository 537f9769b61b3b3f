#!/usr/bin/env bash
# The whole test suite: Rust unit/integration/end-to-end tests, then the go/types oracle
# agreement check on the installed Go toolchain's standard library.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools the tests use: mkfifo/setpriv (coreutils/util-linux) are on every Debian machine; Go
# is needed only for the oracle and the fixtures' own `go vet`.
if ! command -v go >/dev/null 2>&1; then
  echo "scripts/test.sh: Go is required for the oracle check (https://go.dev/dl); it is installed on the CI machines" >&2
  exit 1
fi

cargo test --workspace --locked

(cd fixtures/shop && go vet ./... && go test ./... >/dev/null)
(cd fixtures/roots-b && go vet ./...)
(cd fixtures/logic && go vet ./...)
(cd fixtures/validate/mod && go vet ./...)

echo "== MCP front through the official Python SDK (PyPI mcp>=1.28,<2) =="
tests/mcp/run.sh target/debug

echo "== MCP front through the official TypeScript SDK client (npm @modelcontextprotocol/sdk) =="
tests/mcp-ts/run.sh "$PWD/target/debug"

echo "== pre-commit framework (PyPI) end to end =="
tests/precommit/run.sh target/debug

echo "== coordination server: MCP Python SDK (1.x and 2.x) over Streamable HTTP =="
tests/coord/run.sh target/debug

echo "== LSP end to end: Neovim headless and the VS Code extension's launch code =="
tests/lsp/run.sh target/debug

echo "== rendered views in headless Chromium (playwright-core, Debian's chromium) =="
tests/render/run.sh target/debug
echo "screenshot of the site's storage page: target/render-artifacts/storage.png"

echo "== go/types oracle: package-level symbol IDs of $(go env GOROOT)/src =="
tests/oracle/compare.sh

tests/oracle/compare.sh --calls

tests/oracle/compare.sh --implements
tests/oracle/compare.sh --implements fixtures/shop
DOCFORGE_ORACLE_SIDE=go-crate tests/oracle/compare.sh --implements fixtures/shop

echo "== go/types oracle: identifier and struct field uses for editors (GOROOT/src/go) =="
tests/oracle/navigation.sh

echo "== go/ssa + callgraph/cha oracle: precise call resolution =="
tests/oracle/compare.sh --cha fixtures/shop
tests/oracle/compare.sh --cha fixtures/validate/mod
tests/oracle/compare.sh --engine-cha fixtures/validate/mod
tests/oracle/compare.sh --engine-cha --std-only

echo "== the oracles on a module beyond the standard library: golang.org/x/tools, as tests/oracle pins it =="
# Its imports of the standard library and of x/mod, x/sync, … are outside the tree: calls
# into them stay unresolved, and implements pairs whose methods name their types are
# `implements_unknown` (allowed to be missing, never to be wrong).
xtools_src=$(cd tests/oracle && go mod download golang.org/x/tools && go list -m -f '{{.Dir}}' golang.org/x/tools)
xtools=$(mktemp -d)
cp -r "$xtools_src/." "$xtools/"
chmod -R u+w "$xtools"
tests/oracle/compare.sh "$xtools"
DOCFORGE_ORACLE_UNKNOWN_OK=1 tests/oracle/compare.sh --implements "$xtools"
tests/oracle/compare.sh --engine-cha "$xtools"
rm -rf "$xtools"

echo "== gograph validate against both oracles (sampled bindings on std) =="
tests/oracle/compare.sh --validate-sample
