#!/usr/bin/env bash
# Regenerates the generated sections of README.md (between <!-- BEGIN liebench list X -->
# and <!-- END liebench list X --> markers) from the registries: `liebench list X --markdown`
# for X in groups, methods, controllers, models, studies, keys. tests/cli/docs_current.sh fails when the
# README is out of date, so a new method/model/key is documented by running this script.
#   scripts/update_docs.sh [LIEBENCH] [README]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LB="${1:-$ROOT/build/liebench}"
README="${2:-$ROOT/README.md}"
tmp="$(mktemp)"
trap 'rm -f "$tmp" "$tmp".*' EXIT
cp "$README" "$tmp"
for what in groups methods controllers models studies keys; do
  "$LB" list "$what" --markdown > "$tmp.section"
  awk -v what="$what" -v section="$tmp.section" '
    $0 == "<!-- BEGIN liebench list " what " -->" { print; while ((getline line < section) > 0) print line; skip = 1; next }
    $0 == "<!-- END liebench list " what " -->" { skip = 0 }
    !skip { print }' "$tmp" > "$tmp.new"
  mv "$tmp.new" "$tmp"
done
cp "$tmp" "$README"
