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
BOX_ENTRY_NS=10
BOX_BODY_NS=100
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
#  particles (tiles: the former scheme, (C8), pair_scheme=tiles), 2 ranks on one node, N = 300: tiles of 128, 128, 44
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
#  particles (tree, (C10): par::PairPlan in two levels, the default without pair_scheme=), 2 ranks
#  on one node, N = 300, tiles 0, 1, 2 of 128, 128, 44 bodies. Z order (bits of I above J's) of the
#  tile pairs: (0,0) (0,1) (1,1) (0,2) (1,2) (2,2), ordered interactions 16256 32768 16256 11264
#  11264 1892 (W = 89700 = 300 x 299); rank = floor(mid2 x 2 / (2 W)) with mid2 = 2 x cum + w:
#  16256, 65280 -> rank 0; 114304, 141824, 164352, 177808 -> rank 1. Rank 0: 49024 interactions
#  (the busiest), rank 1: 40676. Leaf owners by row tile (t = 0 1 2): row 0: 0 0 1, row 1: 0 1 1,
#  row 2: 1 1 1; the tree on [0, 3) splits at 1, then [1, 3) at 2: maximal nodes row 0: [0,1) and
#  [1,2) of rank 0, [2,3) of rank 1; row 1: [0,1) of rank 0, [1,3) of rank 1; row 2: [0,3) of rank 1.
#  Bodies: rank 0 owns 0..149 (tile 0, 22 bodies of tile 1), rank 1 150..299 (106 of tile 1,
#  tile 2). Roots (owner of the first body): tile 0 -> 0, tile 1 (body 128) -> 0, tile 2 -> 1.
#  need(0) = {0, 1}, need(1) = {0, 1, 2}: needers(0) = needers(1) = {0, 1}, needers(2) = {1}.
#  The four phases (self messages are copies; 6 doubles per body for positions, 7 for sums):
#   pos_up   1 -> 0: rank 1's 106 bodies of tile 1 to its root: 636 doubles, 1 block = 5088 bytes
#            (tile 0: rank 0 is its root; tile 2: rank 1 is its root);
#   pos_down 0 -> 1: tiles 0 and 1 (roots 0) to needer 1: 256 bodies, 1536 doubles, 2 blocks =
#            12288 bytes (tile 2 is read by its root only);
#   sum_up   1 -> 0: row 0's node [2,3) and row 1's node [1,3), 128 bodies each, to root 0: 1792
#            doubles, 2 blocks = 14336 bytes (rank 0's nodes are its own; row 2: rank 1 = root);
#   sum_down 0 -> 1: tile 1's 106 bodies of rank 1 from root 0: 742 doubles = 5936 bytes.
#  SMPI factors: 5088 bytes (>= 3484): lat 1.88101, bw 0.77493; 5936 (>= 5776): lat 2.18796,
#  bw 1.08739; 12288 and 14336 (>= 9376): lat 2.59299, bw 0.58729. One message per phase, both
#  ranks on one node (loopback: 0.3 us, 20 GB/s). 1 rank: compute only (89700).
#  That is the two-level model (pair_scheme=two_level). The plan itself takes the direct scheme
#  there (pair_plan.hpp: its busiest rank posts 2 position messages, the two levels' 1 + 1): the
#  same four phases with every owner's piece its own root,
#   pos_down (the expand) 0 -> 1: rank 0's 150 bodies (tile 0, 22 of tile 1), 900 doubles = 7200
#            bytes; 1 -> 0: its 106 bodies of tile 1, 636 doubles = 5088 bytes (tile 2: read by 1 only);
#   sum_up   (the exchange) 0 -> 1: row 1's node [0,1) for rank 1's 106 bodies of tile 1, 742
#            doubles = 5936 bytes; 1 -> 0: row 0's [2,3) (128 bodies) and row 1's [1,3) (rank 0's 22),
#            1050 doubles = 8400 bytes; pos_up and sum_down stay home. Both messages of a phase at
#            once: the phase ends with the slower. 7200, 8400 (>= 5776): lat 2.18796, bw 1.08739.
read -r tree1 tree2l tree2 < <(awk 'BEGIN { lo = 0.3e-6; bw = 20e9
  up = 1.88101 * lo + 5088 / (0.77493 * bw); down = 2.59299 * lo + 12288 / (0.58729 * bw)
  sup = 2.59299 * lo + 14336 / (0.58729 * bw); sdown = 2.18796 * lo + 5936 / (1.08739 * bw)
  e1 = 2.18796 * lo + 7200 / (1.08739 * bw); e2 = 1.88101 * lo + 5088 / (0.77493 * bw)
  x1 = 2.18796 * lo + 5936 / (1.08739 * bw); x2 = 2.18796 * lo + 8400 / (1.08739 * bw)
  printf "%.12g %.12g %.12g\n", 4 * 5e-9 * 89700, 4 * (5e-9 * 49024 + up + down + sup + sdown),
         4 * (5e-9 * 49024 + (e1 > e2 ? e1 : e2) + (x1 > x2 ? x1 : x2)) }')
#  particles (tree) on 64 ranks of eth (4 nodes), N = 4000: the four phases recomputed here in awk
#  from the message lists of pair_plan.py (whose plan is checked against the C++ below) by the rule
#  of README (C10): every message of s bytes loads the links it crosses with s / bw_f(s); between
#  nodes: lat_f(s) x 25 us + max(load out of its sender's node, load into its receiver's node) /
#  1.25 GB/s (and the backbone's total / 80 GB/s); within a node lat_f(s) x 0.3 us + its own load
#  / 20 GB/s; a phase ends with its slowest message. Busiest rank: 344064 interactions (the C++
#  PairPlan(4000, 256, 7, 64, r) for r = 0..63, printed by a throwaway dump program).
phase() {  # awk over "SRC DST BYTES" lines: (C10) on eth
  awk 'function row(s) { return s >= 65472 ? 1 : s >= 15424 ? 2 : s >= 9376 ? 3 : s >= 5776 ? 4 : s >= 3484 ? 5 : s >= 1426 ? 6 : s >= 732 ? 7 : s >= 257 ? 8 : 9 }
    BEGIN { split("0.940694 0.697866 0.58729 1.08739 0.77493 0.608902 0.341987 0.338112 0.812084", bf, " ")
            split("11.6436 3.48845 2.59299 2.18796 1.88101 1.61075 1.9503 1.95341 2.01467", lf, " ") }
    { s[NR] = $1; d[NR] = $2; b[NR] = $3; e = $3 / bf[row($3)]
      if (int($1 / 16) != int($2 / 16)) { out[int($1 / 16)] += e; in_[int($2 / 16)] += e; bb += e } }
    END { t = 0
      for (k = 1; k <= NR; ++k) { r = row(b[k]); ns = int(s[k] / 16); nd = int(d[k] / 16)
        if (ns != nd) { load = out[ns] > in_[nd] ? out[ns] : in_[nd]; v = lf[r] * 25e-6 + load / 1.25e9
                        if (lf[r] * 25e-6 + bb / 80e9 > v) v = lf[r] * 25e-6 + bb / 80e9 }
        else v = lf[r] * 0.3e-6 + b[k] / bf[r] / 20e9
        if (v > t) t = v }
      printf "%.12g", t }'
}
phases64=0
for ph in pos_up pos_down sum_up sum_down; do
  "$PY" "$SRC/scripts/smpi/pair_plan.py" 4000 64 --messages "$ph" > "${ph}64.txt"
  [[ -s ${ph}64.txt ]] || bad "pair_plan.py 4000 64 --messages $ph: no messages"
  phases64=$(awk -v a="$phases64" -v b="$(phase < "${ph}64.txt")" 'BEGIN { printf "%.12g", a + b }')
done
tree64=$(awk -v p="$phases64" 'BEGIN { printf "%.12g", 4 * (5e-9 * 344064 + p) }')
#  box (C11), dlm (3 field evaluations in 2 steps: R = 1.5), N = 4096: on 16 ranks of ib (one
#  node) the busiest rank has 20480 list entries and sends 64000 bytes in 20 messages per
#  evaluation (mean 3200 bytes: lat 1.61075, bw 0.608902) through the loopback (0.3 us, 20 GB/s),
#  256 bodies per rank; the 16-byte rdb allreduce: 4 rounds in the node. On 32 ranks (2 nodes):
#  the same counts, the exchange at lat_f x (2 x 0.5 + 0.5) us over the node link shared by 16
#  ranks (12.5 GB/s / 16), N = 8192: 256 bodies per rank; the allreduce: 4 rounds in the node, 1 across
#  (16 flows on the node link).
read -r box16 box32 < <(awk 'BEGIN { lo = 0.3e-6; lbw = 20e9
  m16 = 2.01467 * lo + 16 / (0.812084 * lbw)
  ex16 = 2 * 1.61075 * lo + 64000 / (0.608902 * lbw)
  b16 = 1.5 * (10e-9 * 20480 + ex16 + 4 * m16) + 100e-9 * 256
  ex32 = 2 * 1.61075 * 1.5e-6 + 64000 / (0.608902 * 12.5e9 / 16)
  x16 = 2.01467 * 1.5e-6 + 16 / (0.812084 * 12.5e9 / 16)
  b32 = 1.5 * (10e-9 * 20480 + ex32 + 4 * m16 + x16) + 100e-9 * 256
  printf "%.12g %.12g\n", b16, b32 }')
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
  line tiles particles 300 2 ib 1 "$(x "$tiles2" 1.1)" dd pair_scheme=tiles
  line tree particles 300 1 ib 1 "$(x "$tree1" 1.1)" ff
  line tree particles 300 2 ib 1 "$(x "$tree2" 1.1)" ff
  line tree2l particles 300 2 ib 1 "$(x "$tree2l" 1.1)" ff pair_scheme=two_level
  line tree64 particles 4000 64 eth 1 "$(x "$tree64" 1.1)" gg pair_scheme=tree
  line eth32 particles 3200 32 eth 1 "$(x "$eth32" 1.1)" ee pair_scheme=rows
  line box16 box 4096 16 ib 2 "$(x "$box16" 1.1)" na domain_entries_max=20480 domain_messages_eval_max=20 domain_bytes_eval_max=64000 | sed 's/ rhs=8 / rhs=3 /'
  line box32 box 8192 32 ib 2 "$(x "$box32" 1.1)" na domain_entries_max=20480 domain_messages_eval_max=20 domain_bytes_eval_max=64000 | sed 's/ rhs=8 / rhs=3 /'
} > sum.txt

"${IMPORT[@]}" sum.txt s.h5 --calibration cal.env --plot s.png 2> err.txt && ok "import" || bad "import: $(cat err.txt)"
[[ -s s.png ]] && ok "plot written" || bad "no plot"
"$LB" report s.h5 --table scaling --format csv > t.csv 2> err.txt && ok "report" || bad "report: $(cat err.txt)"
# columns by name
col() { awk -F, -v want="$1" -v c="$2" -v p="$3" 'NR == 1 { for (i = 1; i <= NF; ++i) h[$i] = i; next }
        $1 == c && $6 == p { print $h[want] }' t.csv; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && (a - b) / b < 1e-6 && (b - a) / b < 1e-6) }'; }
for c in "chain 1 $chain1" "chain 2 $chain2" "particles 1 $parts1" "particles 16 $parts16" "tiles 2 $tiles2" "eth32 32 $eth32" \
         "tree 1 $tree1" "tree 2 $tree2" "tree2l 2 $tree2l" "tree64 64 $tree64" "box16 16 $box16" "box32 32 $box32"; do
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

# (C10)'s terms under --explain: exactly compute and the four phases, summing to the model (the
# terms are printed to 4 digits: 1e-3); the direct scheme's pos_up and sum_down are zero
"$PY" "$SRC/scripts/smpi/cost_model.py" --calibration cal.env --explain sum.txt > ex.txt 2> err.txt \
  && awk -v want="$tree2l" -v wantd="$tree2" '($1 == "tree2l" || $1 == "tree") && $3 == 2 { n = 0; for (i = 8; i <= NF; ++i) { split($i, kv, "="); t[kv[1]] = kv[2]; ++n }
       s = t["compute"] + t["pos_up"] + t["pos_down"] + t["sum_up"] + t["sum_down"]
       if ($1 == "tree2l") ok2 = (n == 5 && t["pos_up"] > 0 && t["pos_down"] > 0 && t["sum_up"] > 0 && t["sum_down"] > 0 \
             && (s - want) / want < 1e-3 && (want - s) / want < 1e-3)
       else okd = (n == 5 && t["pos_up"] == 0 && t["pos_down"] > 0 && t["sum_up"] > 0 && t["sum_down"] == 0 \
             && (s - wantd) / wantd < 1e-3 && (wantd - s) / wantd < 1e-3) }
       END { exit !(ok2 && okd) }' ex.txt && ok "--explain: compute + pos_up + pos_down + sum_up + sum_down = the model (two levels and direct, 2 ranks)" \
  || bad "--explain of the tree lines: $(grep -E '^tree2?l? ib 2' ex.txt) $(cat err.txt)"
"${IMPORT[@]}" sum.txt t2.h5 --calibration cal.env --pair-scheme tree 2> err.txt && ok "import --pair-scheme tree" \
  || bad "import --pair-scheme tree: $(cat err.txt)"
printf '%s\n' "$(line tree particles 300 2 ib 1 0.1 ff pair_scheme=slots)" > badsum.txt
expect_status "cost_model.py unknown pair_scheme" 2 "expected rows, tiles, tree, two_level or direct" "$PY" "$SRC/scripts/smpi/cost_model.py" --calibration cal.env badsum.txt

# The replica of par::PairPlan (pair_plan.py) against the C++: every rank's interactions, tile
# pairs and leaves as printed by PairPlan(N, tile_size_for(N), 7, P, r) for r = 0..P-1 (the
# literal: the hand count above; the md5 sums: the lines of a throwaway dump program linked to
# libliebench, 2026-11-24, main at 2ca21a4, of which these are the first 8 fields).
"$PY" "$SRC/scripts/smpi/pair_plan.py" 300 2 --dump > dump2.txt
printf '%s\n' "rank 0 interactions 49024 tile_pairs 2 leaves 3" "rank 1 interactions 40676 tile_pairs 4 leaves 6" > want2.txt
cmp -s dump2.txt want2.txt && ok "pair_plan.py = PairPlan at N = 300, P = 2" || bad "pair_plan.py 300 2: $(diff dump2.txt want2.txt)"
for c in "4000 64 a56438f04b8665262b66da29bcb7e208" "100 7 f8aecfa3ac918a6c1a753b3fb33e605e"; do
  read -r n p sum <<< "$c"
  got=$("$PY" "$SRC/scripts/smpi/pair_plan.py" "$n" "$p" --dump | md5sum | cut -d' ' -f1)
  [[ $got == "$sum" ]] && ok "pair_plan.py = PairPlan at N = $n, P = $p (md5 of the per-rank dump)" || bad "pair_plan.py $n $p: md5 $got"
done
# The four phases (peer:doubles:blocks per message, self excluded) by hand at N = 300, P = 2 (the
# hand count above) ...
"$PY" "$SRC/scripts/smpi/pair_plan.py" 300 2 --dump-phases --scheme two_level > dumpx2.txt
cat > wantx2.txt <<'EOF2'
rank 0 pos_up sends recvs 1:636:1
rank 0 pos_down sends 1:1536:2 recvs
rank 0 sum_up sends recvs 1:1792:2
rank 0 sum_down sends 1:742:1 recvs
rank 1 pos_up sends 0:636:1 recvs
rank 1 pos_down sends recvs 0:1536:2
rank 1 sum_up sends 0:1792:2 recvs
rank 1 sum_down sends recvs 0:742:1
EOF2
cmp -s dumpx2.txt wantx2.txt && ok "pair_plan.py's four phases = the hand count at N = 300, P = 2" || bad "phases 300 2: $(diff dumpx2.txt wantx2.txt)"
# A second hand count, N = 129 on 3 ranks (a tile over three owners, a root without tile pairs):
# tiles 0 (bodies 0..127) and 1 (body 128); bodies 0..42, 43..85, 86..128 on ranks 0, 1, 2; roots:
# tile 0 -> 0, tile 1 -> 2. Tile pairs in Z order (0,0) (0,1) (1,1), weights 16256, 256, 0 (W =
# 16512): mid2 x 3 / (2 W) = 48768 / 33024 -> rank 1; 98304 / 33024 -> 2; 99072 / 33024 = 3 -> 2
# (the last rank). need(0) = {}, need(1) = {0}, need(2) = {0, 1}. Leaves: (0,0) rank 1; (0,1),
# (1,0), (1,1) rank 2; nodes: row 0 [0,1) of 1 and [1,2) of 2, row 1 [0,2) of 2 (its own root).
#   pos_up   1 -> 0: 43 bodies x 6 = 258; 2 -> 0: 42 x 6 = 252 (tile 1: rank 2 is its root);
#   pos_down 0 -> 1 and 0 -> 2: tile 0, 128 x 6 = 768 each;
#   sum_up   1 -> 0 and 2 -> 0: one node of tile 0 each, 128 x 7 = 896;
#   sum_down 0 -> 1: 43 x 7 = 301; 0 -> 2: 42 x 7 = 294.
"$PY" "$SRC/scripts/smpi/pair_plan.py" 129 3 --dump > dump3.txt
"$PY" "$SRC/scripts/smpi/pair_plan.py" 129 3 --dump-phases --scheme two_level >> dump3.txt
cat > want3.txt <<'EOF2'
rank 0 interactions 0 tile_pairs 0 leaves 0
rank 1 interactions 16256 tile_pairs 1 leaves 1
rank 2 interactions 256 tile_pairs 2 leaves 3
rank 0 pos_up sends recvs 1:258:1 2:252:1
rank 0 pos_down sends 1:768:1 2:768:1 recvs
rank 0 sum_up sends recvs 1:896:1 2:896:1
rank 0 sum_down sends 1:301:1 2:294:1 recvs
rank 1 pos_up sends 0:258:1 recvs
rank 1 pos_down sends recvs 0:768:1
rank 1 sum_up sends 0:896:1 recvs
rank 1 sum_down sends recvs 0:301:1
rank 2 pos_up sends 0:252:1 recvs
rank 2 pos_down sends recvs 0:768:1
rank 2 sum_up sends 0:896:1 recvs
rank 2 sum_down sends recvs 0:294:1
EOF2
cmp -s dump3.txt want3.txt && ok "pair_plan.py's plan and four phases = the hand count at N = 129, P = 3" || bad "129 3: $(diff dump3.txt want3.txt)"
# The direct scheme there (the plan's own choice: its busiest rank posts 3 position messages, the
# two levels' 2 + 2): every owner's piece is its own root, so pos_up and sum_down stay home;
#   pos_down (the expand) tile 0: 0 -> 1, 0 -> 2: 43 x 6 = 258; 1 -> 2: 258; 2 -> 1: 42 x 6 = 252
#            (tile 1 is read by its owner 2 only);
#   sum_up   (the exchange) node [0,1) of row 0 from 1 -> 0: 43 x 7 = 301, 1 -> 2: 42 x 7 = 294;
#            node [1,2) from 2 -> 0 and 2 -> 1: 301 each; row 1's node stays on 2.
"$PY" "$SRC/scripts/smpi/pair_plan.py" 129 3 --dump-phases > dumpd3.txt
cat > wantd3.txt <<'EOF2'
rank 0 pos_up sends recvs
rank 0 pos_down sends 1:258:1 2:258:1 recvs
rank 0 sum_up sends recvs 1:301:1 2:301:1
rank 0 sum_down sends recvs
rank 1 pos_up sends recvs
rank 1 pos_down sends 2:258:1 recvs 0:258:1 2:252:1
rank 1 sum_up sends 0:301:1 2:294:1 recvs 2:301:1
rank 1 sum_down sends recvs
rank 2 pos_up sends recvs
rank 2 pos_down sends 1:252:1 recvs 0:258:1 1:258:1
rank 2 sum_up sends 0:301:1 1:301:1 recvs 1:294:1
rank 2 sum_down sends recvs
EOF2
cmp -s dumpd3.txt wantd3.txt && ok "pair_plan.py takes the direct scheme at N = 129, P = 3: its phases = the hand count" \
  || bad "direct 129 3: $(diff dumpd3.txt wantd3.txt)"
"$PY" "$SRC/scripts/smpi/pair_plan.py" 300 2 --dump-expand --scheme two_level > dumpe2.txt
head -2 wantx2.txt > wante2.txt && sed -n 5,6p wantx2.txt >> wante2.txt
cmp -s dumpe2.txt wante2.txt && ok "pair_plan.py --dump-expand = the pos phases at N = 300, P = 2" || bad "expand 300 2: $(diff dumpe2.txt wante2.txt)"
# ... and live: scripts/smpi/plan_dump.cpp, compiled here from this tree's PairPlan (the C++ side:
# its pos_up / pos_down / sum_up / sum_down lists), against pair_plan.py for layouts with 1 to
# 250 tiles and 2 to 1024 ranks: the plan (--dump) and every message of the four phases (N = 100
# and 200 on 2 ranks own whole tiles, 70 on 2 and 340 on 3 keep the balanced ranges).
lib_dir="$(dirname "$LB")"
if mpicxx -std=c++20 -O1 -fopenmp -I"$SRC/src" "$SRC/scripts/smpi/plan_dump.cpp" "$SRC/src/parallel/pair_plan.cpp" \
     "$SRC/src/parallel/context.cpp" -L"$lib_dir" -lliebench -Wl,-rpath,"$lib_dir" -o plan_dump > cc.txt 2>&1; then
  for c in "300 2" "37 3" "100 7" "129 3" "100 2" "70 2" "200 2" "340 3" "4500 5" "4000 64" "16000 1024" "64000 1024"; do
    read -r n p <<< "$c"
    ./plan_dump "$n" "$p" > cpp.txt && "$PY" "$SRC/scripts/smpi/pair_plan.py" "$n" "$p" --dump > py.txt \
      && cmp -s cpp.txt py.txt && ok "pair_plan.py = C++ PairPlan, every rank, N = $n, P = $p" \
      || bad "pair_plan.py $n $p differs from the C++: $(diff cpp.txt py.txt | head -3)"
    ./plan_dump "$n" "$p" --phases > cppx.txt && "$PY" "$SRC/scripts/smpi/pair_plan.py" "$n" "$p" --dump-phases > pyx.txt \
      && cmp -s cppx.txt pyx.txt && ok "pair_plan.py's four phases = C++ PairPlan's, every rank, N = $n, P = $p" \
      || bad "pair_plan.py phases $n $p differ from the C++: $(diff cppx.txt pyx.txt | head -3)"
    if (( p <= 64 )); then  # either scheme forced
      for sc in two_level direct; do
        ./plan_dump "$n" "$p" --phases --$sc > cppx.txt \
          && "$PY" "$SRC/scripts/smpi/pair_plan.py" "$n" "$p" --dump-phases --scheme $sc > pyx.txt \
          && cmp -s cppx.txt pyx.txt && ok "pair_plan.py's $sc phases = C++ PairPlan's, N = $n, P = $p" \
          || bad "pair_plan.py $sc phases $n $p differ from the C++: $(diff cppx.txt pyx.txt | head -3)"
      done
    fi
  done
else
  bad "scripts/smpi/plan_dump.cpp does not build against this tree's PairPlan (it needs the two-level phase lists pos_up ... sum_down): $(grep -m1 error cc.txt)"
fi
# internal consistency (every tile pair once, owners monotone along the Z order, each rank within
# one tile pair of W / P, nodes partition every row, sends = receives transposed, byte totals; two
# levels: roots own their first body, every rank receives per phase what the definitions give)
for c in "300 2" "4500 5" "64000 1024"; do
  read -r n p <<< "$c"
  "$PY" "$SRC/scripts/smpi/pair_plan.py" "$n" "$p" --check > chk.txt 2>&1 && grep -q '^consistent$' chk.txt \
    && ok "pair_plan.py --check N = $n, P = $p" || bad "pair_plan.py --check $n $p: $(tail -3 chk.txt)"
done

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
