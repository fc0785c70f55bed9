#!/usr/bin/env bash
# Error paths that must not lose data or look like success (issue 14, "No data lost on error
# paths"): report --output never overwrites without --force, never its input, never a
# non-regular file; sizes that cannot fit (dt -> 2^62+ steps, N beyond the memory) are bad
# input; SIGPIPE does not kill a run; stale temporaries of killed runs are removed by the next
# run and by `liebench clean`; experiment/initial files that are directories, unknown format
# versions, a UTF-8 BOM, INI line numbers, a file without /summary. Messages that echo input
# (issue 29): a 1 MB value or key cut with its size, NUL and raw bytes escaped, numbers short;
# --part with more parts than runs refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

cat > ok.cfg <<'CFG'
study = invariants
model = free_rigid_body
methods = rkmk4
steps = 64
CFG
"$LB" run ok.cfg -q -o r.h5 || { bad "baseline run"; finish; }
cp r.h5 r.copy.h5

# ---- report --output
"$LB" report r.h5 -o t.md && [[ -s t.md ]] && ok "report -o writes a new file" || bad "report -o"
echo keep > t.md
expect_status "report -o existing without --force" 2 "pass --force" "$LB" report r.h5 -o t.md
[[ "$(cat t.md)" == keep ]] && ok "existing report file kept" || bad "existing report file changed"
expect_status "report -o existing with --force" 0 "" "$LB" report r.h5 -o t.md --force
grep -q '|' t.md && ok "--force replaced the regular file" || bad "--force did not replace"
expect_status "report -o its own input" 2 "is the input file" "$LB" report r.h5 -o r.h5 --force
ln -sf r.h5 link.h5
expect_status "report -o its input under another name" 2 "is the input file" "$LB" report r.h5 -o link.h5 --force
cmp -s r.h5 r.copy.h5 && ok "input intact" || bad "input damaged"
mkfifo fifo
expect_status "report -o FIFO --force" 2 "not a regular file" "$LB" report r.h5 -o fifo --force
[[ -p fifo ]] && ok "FIFO kept" || bad "FIFO replaced"
mkdir adir
expect_status "report -o directory --force" 2 "not a regular file" "$LB" report r.h5 -o adir --force
if [[ $EUID -eq 0 ]]; then
  mknod devnull c 1 3
  expect_status "report -o device --force" 2 "not a regular file" "$LB" report r.h5 -o devnull --force
  [[ -c devnull ]] && ok "device node kept" || bad "device node replaced"
fi
compgen -G "*.tmp.*" >/dev/null && bad "report left $(ls ./*.tmp.*)" || ok "report left no temporary file"

# ---- run --force never replaces what is not a regular file (issue 29: `-o null --force` on a
# character device replaced it with the result, exit 0): the result, its run log and its
# checkpoint, also through a link; exit 2, one line, the node untouched, nothing written.
mkdir -p dev && cd dev || exit 1
mkfifo fifo
mkdir adir
/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')"
nodes=(fifo:p adir:d sock:S)
if [[ $EUID -eq 0 ]]; then mknod null c 1 3 && nodes+=(null:c); fi
ln -s fifo link && nodes+=(link:p)
for nk in "${nodes[@]}"; do
  n=${nk%%:*} k=${nk#*:}
  out=$("$LB" run ../ok.cfg -q -o "$n" --force 2>&1); st=$?
  lines=$(grep -c . <<<"$out")
  if [[ $st -eq 2 && $lines -eq 1 && ( "$out" == *"not a regular file"*"never replaced"* || "$out" == *"is a directory"* ) ]]
  then ok "run -o $n --force: exit 2, one line"
  else bad "run -o $n --force: exit $st, $lines line(s): $out"; fi
  case $k in p) [[ -p $n ]];; d) [[ -d $n ]];; S) [[ -S $n ]];; c) [[ -c $n ]];; esac && ok "$n untouched" ||
    bad "$n replaced: $(ls -l "$n")"
done
[[ -L link ]] && ok "the link itself untouched" || bad "the link was replaced"
# the run log (<output>.log) and the checkpoint (<output>.ckpt.h5) next to the output
mkfifo r.h5.log
expect_status "run log path is a FIFO" 2 "run log 'r.h5.log' exists and is a FIFO" "$LB" run ../ok.cfg -q -o r.h5
[[ -p r.h5.log && ! -e r.h5 ]] && ok "log FIFO untouched, no result written" || bad "log FIFO replaced or result written"
rm -f r.h5.log
ln -s fifo c.h5.ckpt.h5
expect_status "checkpoint path links to a FIFO" 2 "checkpoint 'c.h5.ckpt.h5' exists and is a link to a FIFO" \
  "$LB" run ../ok.cfg -q -o c.h5
[[ -L c.h5.ckpt.h5 && -p fifo && ! -e c.h5 ]] && ok "checkpoint link untouched" || bad "checkpoint link replaced"
compgen -G "*.tmp.*" >/dev/null && bad "run left $(ls ./*.tmp.*)" || ok "refused runs left no temporary file"
cd .. || exit 1

# ---- sizes that cannot fit
grep -v '^steps' ok.cfg > nosteps.cfg
expect_status "dt = 1e-300" 2 "key 'dt' has value '1e-300'" "$LB" run nosteps.cfg --dt=1e-300 -o big.h5
expect_status "dt = 1e-300 (--check)" 2 "more than 2^62" "$LB" run nosteps.cfg --dt=1e-300 -o big.h5 --check
cat > chain.cfg <<'CFG'
study = invariants
model = nfold_pendulum
methods = rkmk4
steps = 4
CFG
expect_status "N = 1e12 links" 2 "key 'nfold_pendulum.N'" "$LB" run chain.cfg --nfold_pendulum.N=1000000000000 -o big.h5
expect_status "1e9 dipoles" 2 "key 'dipolar.N'" "$LB" run chain.cfg --model=dipolar --dipolar.N=1000000000 -o big.h5
[[ ! -e big.h5 ]] && ok "nothing written for sizes that cannot fit" || bad "big.h5 written"

# ---- dipolar periodic box (issue 28): bad boxes refused in one line, exit 2, nothing written
box_refused() {  # NAME TEXT ARGS...
  local name=$1 text=$2; shift 2
  expect_status "$name" 2 "$text" "$LB" run chain.cfg --model=dipolar --dipolar.N=8 "$@" -o box.h5
  local out; out=$("$LB" run chain.cfg --model=dipolar --dipolar.N=8 "$@" -o box.h5 2>&1)
  [[ $(printf '%s\n' "$out" | wc -l) -eq 1 ]] || bad "$name: refusal is not one line: $out"
}
box_refused "box without a cutoff" "minimum image is implemented on the cutoff path only" --dipolar.box=10,10,10
box_refused "cutoff > L/2" "more than half the periodic y length 8" --dipolar.box=20,8,20 --dipolar.cutoff=4.5
box_refused "box length 0" "key 'dipolar.box' has value '0'" --dipolar.box=10,0,10 --dipolar.cutoff=3
box_refused "box length < 0" "key 'dipolar.box' has value '-3'" --dipolar.box=10,-3,10 --dipolar.cutoff=3
box_refused "two box lengths" "needs 3 values" --dipolar.box=10,10 --dipolar.cutoff=3
box_refused "unknown periodic axis" "key 'dipolar.periodic'" --dipolar.box=10,10,10 --dipolar.cutoff=3 --dipolar.periodic=x,q
box_refused "shift without a cutoff" "key 'dipolar.cutoff_shift'" --dipolar.cutoff_shift=true
[[ ! -e box.h5 ]] && ok "nothing written for refused boxes" || bad "box.h5 written"
expect_status "cutoff = L/2 on the periodic axes accepted" 0 "" "$LB" run chain.cfg --model=dipolar --dipolar.N=8 \
  --dipolar.box=10,4,10 --dipolar.periodic=x,z --dipolar.cutoff=5 --dipolar.spread=5 -o box_ok.h5 -q

# ---- SIGPIPE: `liebench ... 2>&1 | head -1` finishes the run and cleans up
set -o pipefail
# (progress lines every 0.01 s keep writing to the closed pipe while the run goes on)
("$LB" run ok.cfg --steps=400000 --progress_interval=0.01 -o pipe.h5 2>&1 | head -c 1 >/dev/null); st=$?
set +o pipefail
sleep 0.2
[[ -f pipe.h5 ]] && ok "SIGPIPE: the run finished and wrote its file" || bad "SIGPIPE: no file (status $st)"
compgen -G "pipe.h5.tmp.*" >/dev/null && bad "SIGPIPE left a temporary file" || ok "SIGPIPE: no temporary file"

# ---- stale temporaries: a dead owner's files are removed, a live owner's are kept
sleep 30 & live=$!
( exit 0 ) & dead=$!; wait $dead
host=$(hostname -s 2>/dev/null || hostname); host=${host%%.*}
touch "s.h5.tmp.$host.$dead" "s.h5.group1of2.$host.$dead.part" "s.h5.tmp.$host.$live" "s.h5.tmp.otherhost.$dead"
expect_status "a later run removes its stale temporary" 0 "removed s.h5.tmp.$host.$dead" "$LB" run ok.cfg -q -o s.h5
[[ ! -e "s.h5.tmp.$host.$dead" && -e "s.h5.tmp.$host.$live" && -e "s.h5.tmp.otherhost.$dead" ]] \
  && ok "only the dead owner's temporary was removed" || bad "after the run: $(ls s.h5*)"
touch "s.h5.group1of2.$host.$dead.part"   # (the run removed the first one: it was stale)
out=$("$LB" clean --dry-run 2>&1)
[[ "$out" == *"would remove s.h5.group1of2.$host.$dead.part"* && -e "s.h5.group1of2.$host.$dead.part" ]] \
  && ok "clean --dry-run lists, removes nothing" || bad "clean --dry-run: $out"
out=$("$LB" clean . 2>&1)
[[ ! -e "s.h5.group1of2.$host.$dead.part" && -e "s.h5.tmp.$host.$live" && -e "s.h5.tmp.otherhost.$dead" \
   && "$out" == *"kept s.h5.tmp.$host.$live"* ]] && ok "clean removes stale parts, keeps live and foreign files" \
  || bad "clean: $out / $(ls s.h5*)"
kill $live; wait $live 2>/dev/null
expect_status "clean of a file" 2 "needs directories" "$LB" clean ok.cfg

# ---- smaller items
mkdir cfgdir
expect_status "experiment file is a directory" 2 "is a directory" "$LB" run cfgdir -o x.h5
out=$("$LB" run chain.cfg --nfold_pendulum.initial=file --nfold_pendulum.file=cfgdir -o x.h5 2>&1); st=$?
[[ $st -eq 2 && "$out" == *"cfgdir"* && $(wc -l <<<"$out") -le 2 ]] && ok "initial file is a directory: one line, exit 2" \
  || bad "initial file directory: exit $st: $out"
printf '\xEF\xBB\xBF' | cat - ok.cfg > bom.cfg
expect_status "UTF-8 BOM is skipped" 0 "" "$LB" run bom.cfg -q -o bom.h5
printf 'study = invariants\nmodel = free_rigid_body\n\nbogus_key = 1\n' > badline.cfg
expect_status "unknown key with its line number" 2 "badline.cfg:4: unknown key 'bogus_key'" "$LB" run badline.cfg -o x.h5
printf 'study = invariants\n[free_rigid_body]\nno equals sign\n' > syntax.cfg
expect_status "syntax error with its line number" 2 "syntax.cfg:3:" "$LB" run syntax.cfg -o x.h5
# ---- messages that echo input (issue 29): cut with their size, escaped, numbers short
one_short_line() {  # NAME MAXBYTES TEXT CMD...: exit 2, one line of at most MAXBYTES bytes with TEXT, printable
  local name=$1 max=$2 text=$3 out st; shift 3
  out=$("$@" 2>&1); st=$?
  if [[ $st -ne 2 ]]; then bad "$name: exit $st: ${out:0:400}"
  elif (( ${#out} > max )) || [[ $(wc -l <<<"$out") -ne 1 ]]; then bad "$name: ${#out} bytes: ${out:0:400}"
  elif [[ "$out" != *"$text"* ]]; then bad "$name: lacks '$text': ${out:0:400}"
  elif LC_ALL=C grep -q '[^ -~]' <<<"$out"; then bad "$name: unprintable bytes: $(od -c <<<"$out" | head -5)"
  else ok "$name"; fi
}
{ cat ok.cfg; printf 't_final = '; head -c 1048576 /dev/zero | tr '\0' a; echo; } > bigvalue.cfg
end40() { printf "..."; printf "$1%.0s" {1..40}; }  # "..." and the last 40 characters of a cut value
one_short_line "a 1 MB value: cut, with its size" 300 "aaa$(end40 a)' (1048576 bytes); expected a real number" \
  "$LB" run bigvalue.cfg -o x.h5
{ cat ok.cfg; printf 'methods = '; head -c 1048576 /dev/zero | tr '\0' m; echo; } | grep -v '^methods = rkmk4' > bigmethod.cfg
one_short_line "a 1 MB method name" 1500 "mmm$(end40 m)' (1048576 bytes); known:" "$LB" run bigmethod.cfg -o x.h5
bigkey=$(head -c 100000 /dev/zero | tr '\0' k)
start=$SECONDS
one_short_line "a 100 kB unknown key" 400 "kkk$(end40 k)' (100000 bytes) on the command line" "$LB" run ok.cfg "--$bigkey=1" -o x.h5
(( SECONDS - start < 3 )) && ok "... answered at once" || bad "a 100 kB unknown key took $((SECONDS - start)) s"
printf 'study = invariants\nmodel = free_rigid_body\nmethods = rkmk4\nsteps = 64\nt_final = 1\0\377\001\033[2J\n' > binary.cfg
one_short_line "NUL and raw bytes in a value: escaped, the message whole" 300 \
  "key 't_final' has value '1\x00\xFF\x01\x1B[2J'; expected a real number" "$LB" run binary.cfg -o x.h5
one_short_line "dt = 1e-300: the step count as a short number" 200 "(t_final - t0)/dt = 9.999999999999999e+299 steps" \
  "$LB" run nosteps.cfg --dt=1e-300 -o big.h5
[[ ! -e x.h5 && ! -e big.h5 ]] && ok "nothing written for these" || bad "a refused run wrote a file"

# ---- --part I/N with more parts than runs: refused up front (also by --check, as slurm/submit.sh runs it)
one_short_line "--part 5/1000 of a 1-run study" 300 "1 run(s), so 999 of the 1000 parts would hold none" \
  "$LB" run ok.cfg --part 5/1000 -q -o part.h5
one_short_line "--part 1/1000 --check" 300 "would hold none" "$LB" run ok.cfg --part 1/1000 --check -o part.h5
[[ ! -e part.h5 ]] && ok "no empty part written" || bad "part.h5 written"
expect_status "--part 2/2 of a 2-run study runs" 0 "" "$LB" run ok.cfg --methods=rkmk4,cf4 --part 2/2 -q -o part22.h5

cp r.h5 v2.h5 && h5_attr_ok=1
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  /usr/bin/python3 - <<'PY'
import h5py, numpy as np
with h5py.File("v2.h5", "r+") as f:
    del f.attrs["liebench_format"]
    f.attrs.create("liebench_format", np.bytes_("liebench-study/99"))
with h5py.File("nosummary.h5", "w") as g, h5py.File("r.h5", "r") as f:
    for k, v in f.attrs.items(): g.attrs[k] = v
    f.copy("study", g); f.copy("parameters", g)
PY
  expect_status "report refuses an unknown format version" 2 "liebench-study/99" "$LB" report v2.h5
  expect_status "merge refuses it too" 2 "liebench-study/99" "$LB" merge v2.h5 -o m.h5
  expect_status "a file without /summary" 2 "no /summary" "$LB" report nosummary.h5
else
  echo "skip: no h5py for the format-version and /summary cases"
fi

# What a method checks when it binds to the model (lgvi_explicit: a diagonal inertia) is refused
# at the plan, before any file exists: it used to surface in the middle of the grid, after the
# runs before it had been written (found by the benchmark deck longtime_double_pendulum).
cat > bind.cfg <<'CFG'
study = invariants
model = nfold_pendulum
methods = rkmk4, lgvi_explicit
steps = 16
CFG
expect_status "--check refuses a method the model's inertia rules out" 2 "needs a diagonal inertia" \
  "$LB" run bind.cfg --check -o bind.h5
expect_status "run refuses it before any run" 2 "needs a diagonal inertia" "$LB" run bind.cfg -o bind.h5
[[ ! -e bind.h5 && -z "$(ls bind.h5.* 2>/dev/null)" ]] && ok "no file written" || bad "a file was written: $(ls bind.h5*)"
finish
