#!/usr/bin/env bash
# Simulated runs in the suite's formats and the cost model beside them (scripts/smpi): summary
# lines -> scripts/smpi/import_summaries.py -> a scaling-study file -> `liebench report --table
# scaling`. The model's seconds per step of two cases are recomputed here from the formulas of
# scripts/smpi/README.md ("Cost model") with awk, independently of cost_model.py; the > 20 %
# flag is checked on constructed runs on both sides of it; bad input gives one line and exit 2
# and leaves an existing output file as it was; different final states across layouts exit 1.
# No simulation is run (the lines are constructed): a few seconds.
# Arguments: LIEBENCH SOURCE_DIR SCRATCH_DIR.
# shellcheck source=tests/cli/lib_studies.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
IMPORT=("$PY" "$SRC/scripts/smpi/import_summaries.py")
cat > cal.env <<'EOF'
# test calibration (round numbers)
HOST_SPEED=2e8f
PAIR_NS=5
CHAIN_LINK_STEP_NS=500
CHAIN_REDUCED_ROW_NS=50
EOF

# Independent model values (README "Cost model"): SMPI factors of SimGrid 3.32 for messages
# below 257 bytes (lat 2.01467, bw 0.812084) and for 12000 / 24000 / 48000 / 96000 bytes;
# both platforms' node loopback: 0.3 us, 20 GB/s.
#  chain, 2 ranks, N = 1000, 4 blocks, 4 RHS per step: 500 links per rank; per RHS two halo
#  messages of 24 bytes, the records' allgather (P = 2, 192 bytes per rank: ring, 1 round) and
#  the reduced system of 3 rows on every rank (also on 1 rank).
#  particles (ordered rows), 16 ranks on one node, N = 4000: 250 rows x 3999 partners per RHS;
#  allgather of 48 x 4000 bytes, 12000 per rank: Bruck, 4 rounds of 1, 2, 4, 8 shares.
read -r chain2 parts16 < <(awk 'BEGIN {
  lo = 0.3e-6; bw = 20e9
  msg24 = 2.01467 * lo + 24 / (0.812084 * bw)
  msg192 = 2.01467 * lo + 192 / (0.812084 * bw)
  chain = 500 * 500e-9 + 4 * (2 * msg24 + msg192 + 3 * 50e-9)
  split("12000 24000 48000 96000", b, " "); split("2.59299 3.48845 3.48845 11.6436", lf, " ")
  split("0.58729 0.697866 0.697866 0.940694", bf, " ")
  ag = 0; for (k = 1; k <= 4; ++k) ag += lf[k] * lo + b[k] / (bf[k] * bw)
  parts = 4 * (5e-9 * 250 * 3999 + ag)
  printf "%.12g %.12g\n", chain, parts }')
#  particles (tiles, the code of this tree), 2 ranks on one node, N = 300: tiles of 128, 128, 44
#  bodies; tile pairs (0,0) (0,1) (0,2) (1,1) (1,2) (2,2) of 8128 16384 5632 8128 5632 946
#  pairs (44850 in all) go to the rank whose half holds their middle: rank 0 has (0,0) and
#  (0,1), 24512 unordered pairs (2 ordered each); slots S = 300 x 3 x 7 x 8 = 50400 bytes, zero-filled at
#  10 GB/s; gather 48 x 300 bytes (P = 2, 7200 per rank: ring, one message); reduce-scatter:
#  S to rank 0, then S / 2 back (one node: no link sharing).
tiles2=$(awk 'BEGIN { lo = 0.3e-6; bw = 20e9
  ag = 2.18796 * lo + 7200 / (1.08739 * bw)
  rs = 3.48845 * lo + 50400 / (0.697866 * bw) + 3.48845 * lo + 25200 / (0.697866 * bw)
  printf "%.12g", 4 * (2 * 5e-9 * 24512 + 50400 / 10e9 + ag + rs) }')
#  particles (rows) on 32 ranks of eth (2 nodes), N = 3200: 100 rows x 3199 partners; the
#  gather: 4800 bytes per rank, Bruck (P < 64, share < 8192), 5 rounds of 1, 2, 4, 8, 16
#  shares, all between nodes (L = 2 x 10 + 5 us), k = 1, 2, 4, 8, 16 messages sharing a node's
#  10 Gb/s link: rate = bw_f x 1.25e9 / k.
eth32=$(awk 'BEGIN { L = 25e-6; bw = 1.25e9
  split("4800 9600 19200 38400 76800", b, " "); split("1.88101 2.59299 3.48845 3.48845 11.6436", lf, " ")
  split("0.77493 0.58729 0.697866 0.697866 0.940694", bf, " ")
  ag = 0; for (k = 1; k <= 5; ++k) ag += lf[k] * L + b[k] / (bf[k] * bw / 2 ^ (k - 1))
  printf "%.12g", 4 * (5e-9 * 100 * 3199 + ag) }')
chain1=$(awk 'BEGIN { printf "%.12g", 1000 * 500e-9 + 4 * 3 * 50e-9 }')
parts1=$(awk 'BEGIN { printf "%.12g", 4 * 5e-9 * 4000 * 3999 }')
# simulated seconds per step: 1.1 x the model (not flagged) and 1.5 x the model (flagged)
x() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%.12g", a * f }'; }
line() {  # case model N ranks platform steps s_per_step hash [extra...]
  local case=$1 model=$2 n=$3 p=$4 plat=$5 steps=$6 sps=$7 hash=$8; shift 8
  echo "case=$case build=smpi ranks=$p threads=1 model=$model N=$n method=rkmk4 dt=1e-3 tol=none steps=$steps" \
       "rejected=0 rhs=$((4 * steps)) seconds=$(x "$sps" "$steps") s_per_step=$sps comm_seconds=na cpu_seconds=na" \
       "state_hash=$hash platform=$plat simulated=1 wall_seconds=1.5 $*"
}
{
  line chain chain 1000 1 ib 2 "$(x "$chain1" 1.1)" aa blocks=4
  line chain chain 1000 2 ib 2 "$(x "$chain2" 1.5)" aa blocks=4 kind=strong t_comm=0.001 t_rhs=na future_key=7
  line particles particles 4000 1 eth 1 "$(x "$parts1" 1.1)" bb pair_scheme=rows
  line particles particles 4000 16 eth 1 "$(x "$parts16" 1.1)" bb pair_scheme=rows
  line particles particles 8000 16 eth 1 0.5 cc kind=weak
  line tiles particles 300 2 ib 1 "$(x "$tiles2" 1.1)" dd
  line eth32 particles 3200 32 eth 1 "$(x "$eth32" 1.1)" ee pair_scheme=rows
} > sum.txt

"${IMPORT[@]}" sum.txt s.h5 --calibration cal.env --plot s.png 2> err.txt && ok "import" || bad "import: $(cat err.txt)"
[[ -s s.png ]] && ok "plot written" || bad "no plot"
"$LB" report s.h5 --table scaling --format csv > t.csv 2> err.txt && ok "report" || bad "report: $(cat err.txt)"
# columns by name
col() { awk -F, -v want="$1" -v c="$2" -v p="$3" 'NR == 1 { for (i = 1; i <= NF; ++i) h[$i] = i; next }
        $1 == c && $6 == p { print $h[want] }' t.csv; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-6 && (b - a) / b < 1e-6) }'; }
for c in "chain 1 $chain1" "chain 2 $chain2" "particles 1 $parts1" "particles 16 $parts16" "tiles 2 $tiles2" "eth32 32 $eth32"; do
  read -r cs p want <<< "$c"
  got=$(col "model per step [s]" "$cs" "$p")
  close "$got" "$want" && ok "model $cs $p ranks: $got s per step" || bad "model $cs $p ranks: $got, expected $want"
done
# model efficiency of the chain on 2 ranks: T1 / (2 T2) of the model
want=$(awk -v a="$chain1" -v b="$chain2" 'BEGIN { printf "%.2f", a / (2 * b) }')
[[ $(col "model efficiency" chain 2) == "$want" ]] && ok "model efficiency $want" || bad "model efficiency $(col "model efficiency" chain 2), expected $want"
[[ $(col flag chain 2) == "> 20 %" && $(col "model vs sim" chain 2) == "-33 %" ]] && ok "flag at 1.5 x" \
  || bad "chain 2 ranks: flag '$(col flag chain 2)', diff '$(col "model vs sim" chain 2)'"
for c in "chain 1" "particles 1" "particles 16"; do
  read -r cs p <<< "$c"
  [[ -z $(col flag "$cs" "$p") && $(col "model vs sim" "$cs" "$p") == "-9 %" ]] && ok "no flag at 1.1 x ($cs $p)" \
    || bad "$cs $p: flag '$(col flag "$cs" "$p")', diff '$(col "model vs sim" "$cs" "$p")'"
done
# simulated efficiency of the particles on 16 ranks: T1 / (16 T16)
want=$(awk -v a="$parts1" -v b="$parts16" 'BEGIN { printf "%.2f", a / (16 * b) }')
[[ $(col efficiency particles 16) == "$want" ]] && ok "simulated efficiency $want" || bad "efficiency $(col efficiency particles 16), expected $want"
# K1's per-phase seconds: t_comm -> "comm [s]"; the weak line is not in the strong file
[[ $(col "comm [s]" chain 2) == 1.000000e-03 ]] && ok "phase t_comm imported" || bad "comm [s]: '$(col "comm [s]" chain 2)'"
[[ $(grep -c '^particles,eth,8000' t.csv) == 0 ]] && ok "weak line left out of the strong file" || bad "weak line in strong table"
"${IMPORT[@]}" sum.txt w.h5 --calibration cal.env --kind weak 2> err.txt && "$LB" report w.h5 --table scaling > w.md 2>&1 \
  && grep -q "Weak scaling" w.md && ok "weak file" || bad "weak import/report: $(cat err.txt w.md)"
"$PY" "$SRC/scripts/smpi/cost_model.py" --calibration cal.env sum.txt > cm.txt 2> err.txt && grep -q "^particles eth 16 4000" cm.txt \
  && ok "cost_model.py prints the lines" || bad "cost_model.py: $(cat err.txt cm.txt)"

# bad input: one line, exit 2, the existing file unchanged
cp s.h5 keep.h5
one_line() {  # NAME SUBSTRING FILE-CONTENT
  printf '%s\n' "$3" > badsum.txt
  local out st
  out=$("${IMPORT[@]}" badsum.txt s.h5 --calibration cal.env 2>&1); st=$?
  if [[ $st -ne 2 || $(wc -l <<< "$out") -ne 1 || "$out" != *"$2"* ]]; then bad "$1: status $st: $out"
  elif ! cmp -s s.h5 keep.h5; then bad "$1: output file changed"
  else ok "$1 -> exit 2, one line"; fi
}
one_line "no ranks" "no ranks=" "$(line chain chain 1000 1 ib 2 0.1 aa | sed 's/ ranks=1//')"
one_line "N not a number" "key N has value 'x'" "$(line chain chain 1000 1 ib 2 0.1 aa | sed 's/N=1000/N=x/')"
one_line "unknown platform" "platform 'myrinet'" "$(line chain chain 1000 1 myrinet 2 0.1 aa)"
one_line "not key=value" "not a key=value pair" "hello world"
one_line "zero seconds" "expected seconds > 0" "$(line chain chain 1000 1 ib 2 0 aa)"
expect_status "unknown option" 2 "option '--kinds=weak' unknown" "${IMPORT[@]}" sum.txt s.h5 --kinds=weak
printf '%s\n' "$(line chain chain 1000 1 ib 2 0.1 aa | sed 's/ N=1000//')" > badsum.txt
expect_status "cost_model.py bad line" 2 "without N=" "$PY" "$SRC/scripts/smpi/cost_model.py" --calibration cal.env badsum.txt
# two layouts of one case with different final states: exit 1, no file
{ line chain chain 1000 1 ib 2 0.1 aa; line chain chain 1000 2 ib 2 0.06 ab; } > diff.txt
expect_status "different final states" 1 "different final states" "${IMPORT[@]}" diff.txt d.h5 --calibration cal.env
[[ ! -e d.h5 && ! -e d.h5.tmp ]] && ok "no file after the failure" || bad "d.h5 written"
finish
