#!/usr/bin/env bash
# Every command of the README's "Using it" block runs as written (issue 12) on a 2-core machine,
# from a scratch directory laid out like the repository (build/liebench, experiments/,
# examples/, studies/; results/ empty). Not run here: scripts/reproduce_results.sh (minutes,
# and it rewrites the committed results/tables/; the maintainers run it).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
mkdir -p build results
ln -s "$LB" build/liebench
for d in experiments examples studies; do ln -s "$SRC/$d" "$d"; done
# the ```sh block after "## Using it", continuation lines joined
cmds=$(awk '/^## Using it/ {u=1} u && /^```sh/ {b=1; next} b && /^```/ {exit} b' "$SRC/README.md" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
n=0
while IFS= read -r c; do
  [[ -z "$c" || "$c" == *reproduce_results.sh* ]] && continue
  n=$((n + 1))
  out=$(bash -c "$c" 2>&1 </dev/null); st=$?
  [[ $st -eq 0 ]] && ok "README: ${c%%#*}" || bad "README: $c: exit $st: $(tail -3 <<<"$out")"
done <<<"$cmds"
[[ $n -ge 7 ]] && ok "$n README commands run" || bad "only $n commands found in README 'Using it'"
finish
