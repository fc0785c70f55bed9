#!/usr/bin/env bash
# Paper-ready tables (issue 12): every .tex `liebench report` writes compiles as given in a
# minimal article (\usepackage{booktabs}, as its first-line comment says) with a real pdflatex,
# without errors and without an overfull \hbox (no table wider than \textwidth); |dH/H0| is
# math and the notes are visible text. Representative tables are regenerated here
# (convergence, invariants + energy drift, adaptive, scaling, a failed run); every committed
# results/tables/*.tex and the scoreboard results/benchmark/*.tex are compiled too. Every CSV is one rectangular table with unique column
# names (python csv). Exit 77 (skipped) without pdflatex (scripts/setup.sh installs it).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
command -v pdflatex >/dev/null || { echo "no pdflatex (texlive-latex-base): skipped"; exit 77; }

"$LB" run "$EX/frb_convergence.cfg" -o conv.h5 -q && ok "convergence run" || bad "convergence run"
"$LB" run "$EX/frb_invariants.cfg" -o inv.h5 -q && ok "invariants run" || bad "invariants run"
"$LB" run "$EX/frb_adaptive.cfg" -o adapt.h5 -q && ok "adaptive run" || bad "adaptive run"
"$LB" run "$EX/frb_scaling.cfg" --steps=200 "--scaling.layouts=1x1 1x2" -o scaling.h5 -q && ok "scaling run" \
  || bad "scaling run"
"$LB" run /dev/null --model=nfold_pendulum --study=simulate --methods=lgvi,rkmk4 --steps=10 --t_final=100 \
  -o failed.h5 -q 2>/dev/null
[[ $? -eq 3 ]] && ok "failed run (exit 3)" || bad "the failing run did not exit 3"

mkdir -p tex
for n in conv inv adapt scaling failed; do
  "$LB" report $n.h5 --format tex > tex/$n.tex || bad "report $n --format tex"
done

# compile FILE.tex: in a minimal article; fails on errors and on any overfull \hbox
compile() {
  local t=$1 d
  d=$(mktemp -d "$W/doc.XXXX")
  cp "$t" "$d/t.tex"
  printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{t}\n\\end{document}\n' > "$d/doc.tex"
  (cd "$d" && pdflatex -interaction=nonstopmode -halt-on-error doc.tex > /dev/null 2>&1)
  local st=$? name
  name=$(basename "$t")
  if [[ $st -ne 0 ]] || grep -q '^!' "$d/doc.log"; then bad "$name: pdflatex failed: $(grep -m2 -A2 '^!' "$d/doc.log")"
  elif grep -q 'Overfull \\hbox' "$d/doc.log"; then bad "$name: $(grep -m1 'Overfull \\hbox' "$d/doc.log")"
  else ok "$name compiles, nothing overfull"; fi
  echo "$d"
}
for t in tex/*.tex; do compile "$t" | head -n -1; done
for t in "$SRC"/results/tables/*.tex "$SRC"/results/benchmark/*.tex; do [[ -e "$t" ]] && compile "$t" | head -n -1; done

# contents: the packages are stated, |dH/H0| is math, notes are visible (not % comments)
head -1 tex/inv.tex | grep -q '^%.*\\usepackage{booktabs}' && ok "first line states booktabs" || bad "no package comment"
grep -q '\$|\\mathrm{d}H/H_0|\$' tex/inv.tex && ok "|dH/H_0| in math" || bad "|dH/H0| not math: $(grep -m1 dH tex/inv.tex)"
comments=$(grep '^%' tex/*.tex | grep -v 'usepackage{booktabs}')
[[ -z "$comments" ]] && ok "no notes in % comments" || bad "notes in comments: $comments"
grep -v '^%' tex/failed.tex | grep -q 'non-finite' && ok "failure reason is visible text" || bad "no failure reason in failed.tex"
grep -q 'failed' tex/failed.tex && ok "failed cells" || bad "no failed cell"

# CSV: one rectangular table per file, unique column names; several tables need --table
for n in conv inv adapt scaling failed; do
  for t in $("$LB" report $n.h5 --list-tables); do "$LB" report $n.h5 --format csv --table $t > $n.$t.csv || bad "csv $n $t"; done
done
expect_status "csv with two tables needs --table" 2 "choose one with --table" "$LB" report inv.h5 --format csv
out=$(/usr/bin/python3 - *.csv <<'PY'
import csv, sys
for p in sys.argv[1:]:
    rows = list(csv.reader(open(p, newline='')))
    head = rows[0]
    widths = {len(r) for r in rows}
    print(("ok  " if len(rows) > 1 and widths == {len(head)} and len(set(head)) == len(head) else "FAIL"),
          p, len(rows) - 1, "rows", sorted(widths), "header", head if len(set(head)) != len(head) else "")
PY
)
echo "$out"; failures=$((failures + $(grep -c '^FAIL' <<<"$out")))
[[ $(grep -c '^ok' <<<"$out") -ge 6 ]] && ok "$(grep -c '^ok' <<<"$out") CSV files checked" || bad "too few CSV files"
for c in "$SRC"/results/tables/*.csv; do
  /usr/bin/python3 -c "
import csv,sys; r=list(csv.reader(open(sys.argv[1],newline=''))); h=r[0]
sys.exit(0 if {len(x) for x in r}=={len(h)} and len(set(h))==len(h) else 1)" "$c" && ok "$(basename "$c") rectangular" \
    || bad "$(basename "$c") not one rectangular table"
done
finish
