#!/usr/bin/env bash
# Numbers in the docs that the suite measures are the suite's (issue 24): the README's test
# count is what CTest registers in this build (within 10 %: it is a rounded "about"), and every
# parallel efficiency that docs/*.md quotes from a committed scaling table ("E1 %, E2 % in the
# committed table" beside a [table](../results/tables/scaling_*.md) link) is that table's
# efficiency of the 2x1 and 1x2 layouts.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
BUILD="$(dirname "$LB")"
total=$(ctest --test-dir "$BUILD" -N 2>/dev/null | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')
stated=$(sed -n 's/.*; about \([0-9]*\) tests).*/\1/p' "$SRC/README.md" | head -1)
if [[ -z "$total" || -z "$stated" ]]; then bad "test count: CTest says '${total:-?}', the README '${stated:-?}' (want '; about N tests)')"
elif (( total * 10 < stated * 9 || total * 10 > stated * 11 )); then
  bad "the README says about $stated tests, CTest registers $total: update the README"
else ok "the README's test count ($stated) is CTest's ($total) within 10 %"; fi

checked=0
while IFS= read -r line; do
  table=$(sed -n 's#.*\[table\](\.\./results/tables/\(scaling_[a-zA-Z0-9_]*\.md\)).*#\1#p' <<<"$line")
  quoted=$(sed -n 's#.*| \([0-9]*\) %, \([0-9]*\) % in the committed table.*#\1 \2#p' <<<"$line")
  [[ -n "$table" && -n "$quoted" ]] || continue
  checked=$((checked + 1))
  actual=$(awk -F'|' '
    NR == 1 || !cols { for (i = 1; i <= NF; i++) { h = $i; gsub(/ /, "", h); if (h == "efficiency") e = i; if (h == "layout") l = i } if (e && l) cols = 1; next }
    { lay = $l; gsub(/ /, "", lay); v = $e; gsub(/ /, "", v); if (lay == "2x1") a = v; if (lay == "1x2") b = v }
    END { if (a != "" && b != "") printf "%d %d", a * 100 + 0.5, b * 100 + 0.5 }' "$SRC/results/tables/$table")
  [[ "$quoted" == "$actual" ]] && ok "docs quote $table: $quoted %" || bad "docs quote '$quoted' % for $table, the table holds '$actual' %"
done < <(cat "$SRC"/docs/*.md)
[[ $checked -ge 3 ]] && ok "$checked quoted efficiencies checked" || bad "only $checked quoted efficiencies found in docs/"
finish
