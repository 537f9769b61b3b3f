#!/usr/bin/env bash
# The rendered views of fixtures/shop in headless Chromium: `BIN_DIR/docforge render` on a copy
# of the fixture, each view's output served over loopback and every page visited through
# playwright-core (tests/render/site.test.js, node's test runner). Debian's chromium is
# installed quietly when /usr/bin/chromium is missing (node and npm too, as tests/lsp does);
# playwright-core comes from the committed package-lock.json and never downloads a browser.
# The screenshot of the site's storage page is left in target/render-artifacts/storage.png.
# Usage: tests/render/run.sh [BIN_DIR]   (default: target/debug)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN_DIR=$(cd "${1:-target/debug}" && pwd)

if [ ! -x /usr/bin/chromium ]; then
  apt-get install -y -qq chromium >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
fi
if ! command -v npm >/dev/null 2>&1; then
  apt-get install -y -qq nodejs npm >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null; }
fi
(cd tests/render && npm ci --no-audit --no-fund --silent)

DOCFORGE_BIN="$BIN_DIR/docforge" RENDER_ARTIFACTS="$PWD/target/render-artifacts" \
  timeout 300 node --test tests/render/site.test.js
