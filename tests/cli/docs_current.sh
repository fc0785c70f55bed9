#!/usr/bin/env bash
# The generated sections of the docs (methods, controllers, models, studies, groups, keys in
# docs/*.md) match the registries of this build: run scripts/update_docs.sh after adding a
# method, model, controller or key. Each section is in the docs exactly once.
set -u
LB="$(realpath "$1")"; SRC="$(realpath "$2")"; W="$3"
rm -rf "$W"; mkdir -p "$W/docs"
cp "$SRC/README.md" "$W/README.md"; cp "$SRC"/docs/*.md "$W/docs/"
bash "$SRC/scripts/update_docs.sh" "$LB" "$W"
st=0
for what in groups methods controllers models studies keys; do
  n=$(cat "$SRC/README.md" "$SRC"/docs/*.md | grep -cxF "<!-- BEGIN liebench list $what -->")
  [[ $n -eq 1 ]] || { echo "FAIL the '$what' section markers appear $n times in README.md and docs/ (want 1)"; st=1; }
done
for f in README.md docs/*.md; do
  [[ -f "$SRC/$f" ]] || continue
  if diff -u "$SRC/$f" "$W/$f"; then echo "ok   $f is current"
  else echo "FAIL $f is out of date: run scripts/update_docs.sh"; st=1; fi
done
exit $st
