#!/usr/bin/env bash
# The generated sections of README.md (methods, models, studies, groups, keys) match the
# registries of this build: run scripts/update_docs.sh after adding a method, model or key.
set -u
LB="$(realpath "$1")"; SRC="$(realpath "$2")"; W="$3"
rm -rf "$W"; mkdir -p "$W"
cp "$SRC/README.md" "$W/README.md"
bash "$SRC/scripts/update_docs.sh" "$LB" "$W/README.md"
for what in groups methods controllers models studies keys; do
  grep -q "<!-- BEGIN liebench list $what -->" "$SRC/README.md" || { echo "FAIL README.md lacks the '$what' section markers"; exit 1; }
done
if diff -u "$SRC/README.md" "$W/README.md"; then echo "ok   README.md is current"; exit 0; fi
echo "FAIL README.md is out of date: run scripts/update_docs.sh"
exit 1
