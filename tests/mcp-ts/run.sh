#!/usr/bin/env bash
# The MCP front through the official TypeScript SDK client (@modelcontextprotocol/sdk, the
# version package-lock.json pins), over stdio. Usage: tests/mcp-ts/run.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")"
BIN_DIR=$(cd "${1:-../../target/debug}" && pwd)
if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq nodejs npm >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null; }
fi
npm ci --no-audit --no-fund --silent
DOCFORGE_BIN="$BIN_DIR/docforge" node --test
