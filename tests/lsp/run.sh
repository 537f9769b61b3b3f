#!/usr/bin/env bash
# End-to-end LSP tests with real clients against `BIN_DIR/docforge lsp` on a copy of
# fixtures/shop: headless Neovim (installed quietly from Debian when missing) and the VS Code
# extension's server-launch code (node, when editors/vscode is built).
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

echo "== Neovim $(nvim --version | head -1 | cut -d' ' -f2) headless against docforge lsp =="
REPO="$REPO" DOCFORGE_ROOT="$work/shop" DOCFORGE_BIN="$BIN_DIR/docforge" \
  timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile tests/lsp/nvim_e2e.lua"

if [ -f editors/vscode/out/launch.js ]; then
  echo "== VS Code extension: server launch code against docforge lsp =="
  rm -rf "$work/shop" && cp -r fixtures/shop "$work/shop"
  timeout 60 node editors/vscode/out/test/launch.test.js "$BIN_DIR/docforge" "$work/shop"
else
  echo "== VS Code extension not built (cd editors/vscode && npm ci && npm run compile): launch test skipped =="
fi
