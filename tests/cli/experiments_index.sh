#!/usr/bin/env bash
# experiments/README.md, the index of the experiment decks (issue 24), is what
# scripts/experiments_index.py writes from the decks and the recorded times; in a copy of the
# tree, a deck added without a recorded time, one without a title, a changed title and a
# changed time are each found.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
IDX="$SRC/scripts/experiments_index.py"
expect_status "experiments/README.md is current" 0 "" "$PY" "$IDX" --check --root "$SRC"
n_decks=$(find "$SRC/experiments" -name '*.cfg' | wc -l)
n_rows=$(grep -c '^| \[`.*\.cfg`\]' "$SRC/experiments/README.md")
[[ $n_decks -eq $n_rows && $n_decks -gt 40 ]] && ok "one row per deck ($n_rows)" || bad "$n_decks decks, $n_rows rows"
grep -qF '| [`P_fig5_double_pendulum_convergence.cfg`](P_fig5_double_pendulum_convergence.cfg) | [P] Fig 5 | convergence | convergence on the double spherical pendulum |' \
  "$SRC/experiments/README.md" && ok "a row: deck, source, study, what it shows" || bad "the row of P_fig5 is not as expected"

mkdir -p tree/results/tables tree/scripts
cp -r "$SRC/experiments" tree/
cp "$SRC/results/tables/timings.tsv" tree/results/tables/
expect_status "the copy is current" 0 "" "$PY" "$IDX" --check --root tree
printf 'title = [P] Fig 99: nothing\nstudy = simulate\n' > tree/experiments/P_fig99_new.cfg
expect_status "a deck without a time" 2 "experiments/P_fig99_new.cfg has no recorded time" "$PY" "$IDX" --check --root tree
printf 'P_fig99_new\t1.5\n' >> tree/experiments/timings.tsv
expect_status "a deck without a row" 1 "experiments/README.md is stale" "$PY" "$IDX" --check --root tree
"$PY" "$IDX" --root tree && grep -qF '| [`P_fig99_new.cfg`](P_fig99_new.cfg) | [P] Fig 99 | simulate | nothing | 1.5 |' \
  tree/experiments/README.md && ok "its row once written" || bad "no row for the new deck: $(grep fig99 tree/experiments/README.md)"
sed -i 's/^title = .*/title = [P] Fig 99: something else/' tree/experiments/P_fig99_new.cfg
expect_status "a changed title" 1 "stale" "$PY" "$IDX" --check --root tree
"$PY" "$IDX" --root tree
sed -i 's/^P_fig99_new\t1.5/P_fig99_new\t2.5/' tree/experiments/timings.tsv
expect_status "a changed time" 1 "stale" "$PY" "$IDX" --check --root tree
sed -i '/^title = /d' tree/experiments/P_fig99_new.cfg
expect_status "a deck without a title" 2 "P_fig99_new.cfg has no key 'title'" "$PY" "$IDX" --check --root tree
finish
