#!/usr/bin/env bash
# The MCP front end to end: the official MCP Python SDK (the contract's `mcp>=1.28,<2` line,
# and the 2.x line for the proposal tools) drives the real `docforge mcp` binary over stdio. Usage: tests/mcp/run.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN_DIR=$(cd "${1:-target/debug}" && pwd)
VENV=${DOCFORGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docforge-tests}/mcp1
if [ ! -x "$VENV/bin/pytest" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check 'mcp>=1.28,<2' pytest
fi
DOCFORGE_BIN="$BIN_DIR/docforge" "$VENV/bin/pytest" -q -p no:cacheprovider tests/mcp --ignore=tests/mcp/sdk2 "${@:2}"

# The proposal tools through the 2.x line too (mcp.Client over stdio).
VENV2=${DOCFORGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docforge-tests}/mcp2
if [ ! -x "$VENV2/bin/pytest" ]; then
  python3 -m venv "$VENV2"
  "$VENV2/bin/pip" install -q --disable-pip-version-check 'mcp>=2' pytest
fi
echo "== MCP Python SDK $("$VENV2/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') =="
DOCFORGE_BIN="$BIN_DIR/docforge" "$VENV2/bin/pytest" -q -p no:cacheprovider tests/mcp/sdk2
