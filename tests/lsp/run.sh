#!/usr/bin/env bash
# End-to-end LSP tests with real clients against `BIN_DIR/docforge lsp` on a copy of
# fixtures/shop: headless Neovim (installed quietly from Debian when missing; it also adds and
# removes a copy of fixtures/roots-b as a second workspace folder) and the VS Code extension,
# built with `npm ci && npm run compile`, whose server-launch code is started against the
# binary (node and npm are installed from Debian when missing).
set -euo pipefail
BIN_DIR=$(cd "${1:?usage: tests/lsp/run.sh BIN_DIR}" && pwd)
cd "$(dirname "$0")/../.."
REPO=$PWD

if ! command -v nvim >/dev/null 2>&1; then
  apt-get install -y -qq neovim >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq neovim >/dev/null; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r fixtures/shop "$work/shop"
cp -r fixtures/roots-b "$work/roots-b"

echo "== Neovim $(nvim --version | head -1 | cut -d' ' -f2) headless against docforge lsp =="
REPO="$REPO" DOCFORGE_ROOT="$work/shop" DOCFORGE_ROOT_B="$work/roots-b" DOCFORGE_BIN="$BIN_DIR/docforge" \
  timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile tests/lsp/nvim_e2e.lua"

if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq nodejs npm >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null; }
fi
echo "== VS Code extension: npm ci && npm run compile (tsc) =="
(cd editors/vscode && npm ci --no-audit --no-fund --silent && npm run -s compile)
echo "== VS Code extension: its server-launch code against docforge lsp =="
rm -rf "$work/shop" && cp -r fixtures/shop "$work/shop"
timeout 60 node editors/vscode/out/test/launch.test.js "$BIN_DIR/docforge" "$work/shop"
