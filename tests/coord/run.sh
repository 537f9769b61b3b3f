#!/usr/bin/env bash
# The coordination server against the official MCP Python SDK's Streamable HTTP client, both
# lines: 1.x (ClientSession, camelCase) and 2.x (mcp.Client, snake_case). Each test starts the
# real `docforge coord serve` on a free loopback port (see conftest.py).
#
#   tests/coord/run.sh [BIN_DIR]     (default: target/debug, which must hold `docforge`)
#
# The SDKs are installed from PyPI into throwaway virtualenvs.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$repo/target/debug}" && pwd)"
[ -x "$bin/docforge" ] || { echo "tests/coord: no $bin/docforge (build it first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

install() { # venv dir, requirement
	python3 -m venv "$1"
	"$1/bin/pip" install --quiet --disable-pip-version-check "$2" pytest
}
install "$work/sdk1" 'mcp>=1.28,<2' &
one=$!
install "$work/sdk2" 'mcp>=2' &
two=$!
wait "$one"
wait "$two"

export DOCFORGE_BIN_DIR="$bin" PYTHONDONTWRITEBYTECODE=1
cd "$repo/tests/coord"
echo "== MCP Python SDK $("$work/sdk1/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') =="
"$work/sdk1/bin/python" -m pytest -q -p no:cacheprovider test_sdk1.py
echo "== MCP Python SDK $("$work/sdk2/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))') =="
"$work/sdk2/bin/python" -m pytest -q -p no:cacheprovider test_sdk2.py
