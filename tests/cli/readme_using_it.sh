#!/usr/bin/env bash
# Every command of the README's tour (its ```sh blocks after "## A ten-minute tour") runs as
# written (issues 12, 24) on a 2-core machine, from a scratch directory laid out like the
# repository (build/liebench, experiments/, examples/, scripts/; results/ empty). Not run here:
# the two commands (they build and test), scripts/reproduce_results.sh (minutes, and it
# rewrites the committed results/tables/), scripts/check_tables.sh (cli.committed_tables runs
# it against the committed tables) and scripts/benchmark.sh (tens of minutes; its quick mode is
# cli.benchmark_scoreboard).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
mkdir -p build results
ln -s "$LB" build/liebench
for d in experiments examples scripts; do ln -s "$SRC/$d" "$d"; done
# the ```sh blocks between "## A ten-minute tour" and the next "## ", continuation lines joined
cmds=$(awk '/^## A ten-minute tour/ {u=1; next} u && /^## / {exit} u && /^```sh/ {b=1; next} b && /^```/ {b=0; next} b' \
         "$SRC/README.md" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
n=0
while IFS= read -r c; do
  [[ -z "$c" || "$c" == *reproduce_results.sh* || "$c" == *check_tables.sh* || "$c" == *scripts/benchmark.sh* ]] && continue
  n=$((n + 1))
  out=$(bash -c "$c" 2>&1 </dev/null); st=$?
  [[ $st -eq 0 ]] && ok "README: ${c%%#*}" || bad "README: $c: exit $st: $(tail -3 <<<"$out")"
done <<<"$cmds"
[[ $n -ge 15 ]] && ok "$n README commands run" || bad "only $n commands found in the README's tour"
finish
