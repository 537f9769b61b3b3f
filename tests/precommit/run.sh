#!/usr/bin/env bash
# End to end with the pre-commit framework (PyPI `pre-commit`): a Git repository whose
# .pre-commit-config.yaml uses this repository's `docforge-validate` hook
# (.pre-commit-hooks.yaml) accepts a commit that keeps its documents' claims and refuses one
# that breaks a claim, naming it.
#
#   tests/precommit/run.sh [BIN_DIR]     (default: target/debug, which must hold `docforge`)
#
# pre-commit is installed into a throwaway virtualenv; the hook repository is this checkout at
# its HEAD commit (what pre-commit clones), the project is a copy of fixtures/validate/mod.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "${1:-$repo/target/debug}" && pwd)"
[ -x "$bin/docforge" ] || { echo "tests/precommit: no $bin/docforge (build it first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
export PRE_COMMIT_HOME="$work/cache" PATH="$bin:$work/venv/bin:$PATH"
rev="$(git -C "$repo" rev-parse HEAD)"

cp -r "$repo/fixtures/validate/mod" "$work/project"
cd "$work/project"
git init -q
git config user.email test@example.invalid
git config user.name test
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $repo
    rev: $rev
    hooks:
      - id: docforge-validate
YAML
pre-commit install >/dev/null
git add -A
if ! git commit -q -m "claims hold" >"$work/ok.log" 2>&1; then
	cat "$work/ok.log"
	echo "FAIL: a commit whose claims hold was refused" >&2
	exit 1
fi

# Break the symbol_exists claim (docs/claims.md: example.com/v/b::Help exists).
sed -i 's/^func Help() string/func Helper() string/' b/b.go
git add -A
if git commit -q -m "breaks a claim" >"$work/broken.log" 2>&1; then
	echo "FAIL: a commit that breaks a claim was accepted" >&2
	exit 1
fi
if ! grep -q 'example.com/v/b::Help' "$work/broken.log" || ! grep -q 'symbol_not_found' "$work/broken.log"; then
	cat "$work/broken.log"
	echo "FAIL: the refusal does not name the broken claim" >&2
	exit 1
fi
[ "$(git rev-list --count HEAD)" = 1 ] || { echo "FAIL: the refused commit was recorded" >&2; exit 1; }
echo "pre-commit: a commit keeping the claims passed; one breaking example.com/v/b::Help was refused"
