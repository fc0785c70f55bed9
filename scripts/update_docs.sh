#!/usr/bin/env bash
# Regenerates the generated sections of the docs (between <!-- BEGIN liebench list X --> and
# <!-- END liebench list X --> markers, in README.md and docs/*.md) from the registries:
# `liebench list X --markdown` for X in groups, methods, controllers, models, studies, keys.
# Also experiments/README.md, the index of the decks (scripts/experiments_index.py).
# tests/cli/docs_current.sh fails when a section is out of date, so a new method/model/key is
# documented by running this script.
#   scripts/update_docs.sh [LIEBENCH] [DIR]      DIR: a tree with README.md and docs/ (default: the repository)
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LB="${1:-$ROOT/build/liebench}"
DIR="${2:-$ROOT}"
executable update_docs.sh LIEBENCH "$LB" "build it (bash scripts/setup.sh) or give its path"
readable_file update_docs.sh DIR/README.md "$DIR/README.md"
tmp="$(mktemp)"
trap 'rm -f "$tmp" "$tmp".*' EXIT
for what in groups methods controllers models studies keys; do
  "$LB" list "$what" --markdown > "$tmp.$what"
done
for doc in "$DIR/README.md" "$DIR"/docs/*.md; do
  [ -f "$doc" ] || continue
  cp "$doc" "$tmp"
  for what in groups methods controllers models studies keys; do
    grep -qxF "<!-- BEGIN liebench list $what -->" "$tmp" || continue
    awk -v what="$what" -v section="$tmp.$what" '
      $0 == "<!-- BEGIN liebench list " what " -->" { print; while ((getline line < section) > 0) print line; skip = 1; next }
      $0 == "<!-- END liebench list " what " -->" { skip = 0 }
      !skip { print }' "$tmp" > "$tmp.new"
    mv "$tmp.new" "$tmp"
  done
  cmp -s "$tmp" "$doc" || cp "$tmp" "$doc"
done
# The index of the experiment decks (experiments/README.md; tests/cli/experiments_index.sh)
if [ "$DIR" = "$ROOT" ]; then /usr/bin/python3 "$ROOT/scripts/experiments_index.py"; fi
