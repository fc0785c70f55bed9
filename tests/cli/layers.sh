#!/usr/bin/env bash
# The layers of src/ only look down (issue 24): every `#include "X/..."` in src/Y/ names a layer
# X at or below Y in the order written in docs/architecture.md (LAYERS below is that order; the
# test checks that the document lists the same). A file that includes a higher layer is named
# with the include, and the test fails.
set -u
SRC="$(realpath "$2")"
LAYERS=(core parallel io groups models methods studies report app)
failures=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
rank() { local i; for i in "${!LAYERS[@]}"; do [[ "${LAYERS[$i]}" == "$1" ]] && { echo "$i"; return; }; done; echo -1; }

doc="$SRC/docs/architecture.md"
if [[ -f "$doc" ]]; then
  listed=$(sed -n 's/^[0-9]\+\. `\([a-z]*\)\/`.*/\1/p' "$doc" | tr '\n' ' ')
  [[ "$listed" == "${LAYERS[*]} " ]] && ok "docs/architecture.md lists the layers in this order: ${LAYERS[*]}" ||
    bad "docs/architecture.md lists '$listed', the test '${LAYERS[*]}'"
else bad "docs/architecture.md is missing"; fi

for dir in "$SRC"/src/*/; do
  layer=$(basename "$dir")
  r=$(rank "$layer")
  [[ $r -ge 0 ]] || { bad "src/$layer/ is not a known layer (add it to LAYERS and docs/architecture.md)"; continue; }
done
checked=0
while IFS= read -r line; do
  file=${line%%:*}; inc=$(sed -n 's/.*#include "\([a-z_]*\)\/.*/\1/p' <<<"${line#*:}")
  layer=$(sed -n 's#.*/src/\([a-z_]*\)/.*#\1#p' <<<"$file")
  [[ -n "$inc" && -n "$layer" ]] || continue
  checked=$((checked + 1))
  ri=$(rank "$inc"); rl=$(rank "$layer")
  if [[ $ri -lt 0 ]]; then bad "${file#"$SRC"/}: includes unknown layer '$inc'"
  elif [[ $ri -gt $rl ]]; then bad "${file#"$SRC"/} (layer $layer) includes ${inc}/: a higher layer: ${line#*:}"; fi
done < <(grep -rn --include='*.hpp' --include='*.cpp' --include='*.in' '^#include "[a-z_]*/' "$SRC/src")
[[ $checked -gt 100 ]] && ok "$checked includes between layers checked" || bad "only $checked includes found"
if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
echo "all passed"; exit 0
