#!/usr/bin/env bash
# `liebench list methods` (plain and Markdown) and `liebench tableau` on a user tableau file,
# a built-in table and bad input. Arguments: liebench binary, source dir, scratch dir.
set -euo pipefail
LB="$1"; WORK="$3"
mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

methods="lie_euler lie_euler_heun rkmk3 rkmk4 rkmk4_trunc rkmk4_co rkmk5 rkmk54 rkmk_user
         cf4 cf43 cf32a cf32b cg3 cf_user rk2 rk2_proj rk4 rk4_proj dopri54 dopri54_proj classical_user"
plain="$("$LB" list methods)"
md="$("$LB" list methods --markdown)"
for m in $methods; do
  grep -q "^  $m " <<<"$plain" || fail "list methods lacks $m"
  row="$(grep "^| \`$m\` |" <<<"$md")" || fail "list methods --markdown lacks $m"
  # 9 columns = 10 unescaped '|' (escaped '\|' inside cells do not count)
  n="$(sed 's/\\|//g' <<<"$row" | tr -cd '|' | wc -c)"
  [ "$n" -eq 10 ] || fail "markdown row of $m has $n separators: $row"
done
grep -q "^| \`cf43\` | cf | 4 | 3 | 5 | 8 | yes |" <<<"$md" || fail "cf43 row: $(grep cf43 <<<"$md")"
grep -q "^| \`dopri54\` | classical | 5 | 4 | 6 | 0 | yes |" <<<"$md" || fail "dopri54 row"

cat > "$WORK/ralston.cfg" <<'CFG'
# Ralston's third-order method as a user tableau
[tableau]
name = ralston3
A = 0; 1/2; 0, 3/4
b = 2/9, 1/3, 4/9
CFG
out="$("$LB" tableau "$WORK/ralston.cfg")"
grep -q "order found: 3" <<<"$out" || fail "ralston3: $out"
# the same table with b perturbed: only first order remains
sed 's#^b = .*#b = 0.5, 0.25, 0.25#' "$WORK/ralston.cfg" > "$WORK/bad.cfg"
out="$("$LB" tableau "$WORK/bad.cfg")"
grep -q "order found: 1" <<<"$out" || fail "perturbed: $out"
grep -q "VIOLATED" <<<"$out" || fail "no violated condition listed"

# a commutator-free method as data: the shipped example (cf4) and a copy with one wrong coefficient
out="$("$LB" tableau "$2/experiments/examples/cf_user_convergence.cfg")"
grep -q "order found: 4" <<<"$out" || fail "cf_user example: $out"
grep -q "Y4 = exp(h(-0.5 f1 + 1 f3)) Y2" <<<"$out" || fail "cf_user stages: $out"
sed -e 's#^stage2 = .*#stage2 = 1/3#' -e '/^c = /d' "$2/experiments/examples/cf_user_convergence.cfg" > "$WORK/cf_bad.cfg"
out="$("$LB" tableau "$WORK/cf_bad.cfg")"
grep -q "order found: 1" <<<"$out" || fail "cf_user wrong coefficient: $out"

set +e
"$LB" tableau "$WORK/missing.cfg" 2>/dev/null; [ $? -eq 2 ] || fail "missing file must exit 2"
printf '[tableau]\nA = 0; 1\nb = 0.5, 0.6\n' > "$WORK/inconsistent.cfg"
msg="$("$LB" tableau "$WORK/inconsistent.cfg" 2>&1)"; st=$?
set -e
[ $st -eq 2 ] || fail "inconsistent tableau must exit 2 (got $st)"
grep -q "first-order condition" <<<"$msg" || fail "message: $msg"
echo "ok"
