#!/usr/bin/env bash
# Key `coordinates` (RKMK with the Cayley map or coordinates of the second kind): a combination
# without a meaning is refused before anything runs, exit 2, one line on stderr naming the value
# and the fix, nothing written -- a truncated dexpinv (rkmk4_trunc, or dexpinv = q), a method
# without a coordinate map (rkmk4_co, cf4, a classical method), a value that is not a map; and
# the valid grid over the three maps runs (exit 0, one row per map).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > ok.cfg <<'CFG'
study = convergence
model = free_rigid_body
methods = rkmk4
steps = 8, 16
t_final = 1
grid = coordinates = exp, cayley, second_kind
CFG

one_line() {  # one_line NAME CMD...: stderr+stdout is exactly one line
  local name=$1; shift
  local out; out=$("$@" 2>&1)
  [[ $(wc -l <<<"$out") -eq 1 ]] && ok "$name: one line" || bad "$name: not one line: $out"
}

expect_status "truncated dexpinv (rkmk4_trunc)" 2 "set dexpinv = exact (or use rkmk4 for rkmk4_trunc), or coordinates = exp" \
  "$LB" run ok.cfg --methods=rkmk4_trunc -o x.h5
one_line "truncated dexpinv" "$LB" run ok.cfg --methods=rkmk4_trunc -o x.h5
expect_status "dexpinv = 2 with the grid's maps" 2 "key 'coordinates' = 'cayley' with method 'rkmk4' needs the exact inverse differential" \
  "$LB" run ok.cfg --dexpinv=2 -o x.h5
expect_status "Casas-Owren" 2 "method 'rkmk4_co' (family rkmk) has no coordinate map" \
  "$LB" run ok.cfg --methods=rkmk4,rkmk4_co -o x.h5
expect_status "commutator-free" 2 "run 'cf4' with coordinates = exp" "$LB" run ok.cfg --methods=cf4 -o x.h5
one_line "commutator-free" "$LB" run ok.cfg --methods=cf4 -o x.h5
expect_status "classical" 2 "'rk4'" "$LB" run ok.cfg --methods=rk4 -o x.h5
grep -v '^grid' ok.cfg > nogrid.cfg
expect_status "not a map" 2 "'quaternion'" "$LB" run nogrid.cfg --coordinates=quaternion -o x.h5
expect_status "--check refuses too" 2 "has no coordinate map" "$LB" run ok.cfg --methods=cf4 -o x.h5 --check
left=$(ls | grep -v -E '^(ok|nogrid)\.cfg$' || true)
[[ -z "$left" ]] && ok "nothing created by refused input" || bad "refused input created files: $left"

# the valid deck: three maps, each of order 4 on the free rigid body's exact solution
expect_status "grid over the three maps" 0 "" "$LB" run ok.cfg -o ok.h5
rows=$("$LB" report ok.h5 --format csv --table convergence 2>&1)
for c in exp cayley second_kind; do
  grep -q "coordinates=$c" <<<"$rows" && ok "row for $c" || bad "no row for coordinates=$c: $rows"
done
finish
