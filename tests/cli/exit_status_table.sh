#!/usr/bin/env bash
# The README's exit-status table is what liebench does (issue 29): the table is parsed from
# DOC (section SECTION), and for every status it lists a representative case is run and must
# end with that status: 0 a finished run, 2 bad input, 3 a run that failed (step-size
# underflow), 4 an I/O error (a full 64 KiB tmpfs; said and not triggered where none can be
# mounted), 5 SIGTERM in a checkpointed study, 128 + s SIGTERM and SIGUSR1 in a study
# that is not checkpointed. 1 (an unexpected failure, a bug) has no trigger: liebench has no
# test hook that raises an internal error, and every failure we can provoke from outside is one
# of the others. The table must list exactly the statuses the program defines (the
# exit_status constants of src/core/error.hpp, 128 + signal in src/app/cli.cpp) and `liebench
# --help` names; a status seen here that the table lacks fails too.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

DOC="$SRC/docs/failures.md"   # where the table lives (README.md before docs/ existed)
SECTION="Exit status, failures and files left behind"   # its heading (any level)

# ---- the table: the first column of the first table under SECTION ("128 + s" -> 128+s)
table=$(awk -v sec="$SECTION" '
  /^#+ / { if (in_sec) exit; h = $0; sub(/^#+ /, "", h); if (h == sec) in_sec = 1; next }
  in_sec && /^\|/ { seen = 1; print; next }
  in_sec && seen { exit }' "$DOC")
[[ -n "$table" ]] || { bad "no table under '$SECTION' in $DOC"; finish; }
listed=$(printf '%s\n' "$table" | awk -F'|' 'NR > 2 { s = $2; gsub(/ /, "", s); print s }' | sort -u | tr '\n' ' ')
echo "table in ${DOC#"$SRC"/}: $listed"

# ---- what the program defines
defined=$(sed -n '/^namespace exit_status {/,/^}/p' "$SRC/src/core/error.hpp" |
  sed -n 's/.*inline constexpr int [a-z_]* = \([0-9]*\);.*/\1/p')
grep -q '128 + e.signal()' "$SRC/src/app/cli.cpp" && defined+=$'\n128+s'
defined=$(printf '%s\n' "$defined" | sort -u | tr '\n' ' ')
[[ "$listed" == "$defined" ]] && ok "the table lists the statuses the program defines ($defined)" \
  || bad "table lists '$listed', src/core/error.hpp and cli.cpp define '$defined'"
help=$("$LB" --help | sed -n '/^Exit status:/,$p' | tr '\n' ' ')
in_help=$(grep -o '[0-9]\{1,3\} \(+ signal\|[A-Za-z]\)' <<<"$help" | sed 's/ + signal/+s/; s/ [A-Za-z]$//' | sort -u | tr '\n' ' ')
[[ "$in_help" == "$listed" ]] && ok "liebench --help names the same statuses" \
  || bad "liebench --help names '$in_help', the table '$listed'"

# ---- each status, triggered
declare -A seen=()
# check STATUS NAME CMD...: the command exits with STATUS; for 2 and 4 with one line on stderr
# (3 adds a line per failed run)
check() {
  local want=$1 name=$2 err st; shift 2
  "$@" >/dev/null 2>err.txt; st=$?
  seen[$st]=1
  if [[ $st -ne $want ]]; then bad "status $want ($name): exit $st: $(head -c 600 err.txt)"
  elif [[ ($want -eq 2 || $want -eq 4) && $(wc -l <err.txt) -ne 1 ]]; then
    bad "status $want ($name): not one line: $(head -c 600 err.txt)"
  else ok "status $want: $name"; fi
}
# signalled WANT SIG NAME CMD...: starts CMD (progress every 0.05 s), sends SIG once it reports
# 5 % done, expects status WANT
signalled() {
  local want=$1 sig=$2 name=$3 pid st; shift 3
  "$@" --progress_interval=0.05 > sig.log 2>&1 &
  pid=$!
  if ! wait_for_percent sig.log $pid 5; then
    wait $pid; bad "status $want ($name): the run ended before the signal: $(tail -2 sig.log)"; return
  fi
  kill -"$sig" $pid
  wait $pid; st=$?
  seen[$st]=1
  [[ $st -eq $want ]] && ok "status $want: $name" || bad "status $want ($name): exit $st: $(tail -2 sig.log)"
}

cat > ok.cfg <<'CFG'
study = invariants
model = free_rigid_body
methods = rkmk4
steps = 64
CFG
cat > adapt.cfg <<'CFG'
study = adaptive
model = free_rigid_body
methods = rkmk54
tol = 1e-6
reference.method = rkmk54
reference.tol = 1e-10
CFG
for row in $listed; do
  case $row in
    0) check 0 "a finished run" "$LB" run ok.cfg -q -o s0.h5 ;;
    1) echo "skip status 1: no test hook raises an internal error (every failure we can provoke is another status)" ;;
    2) check 2 "an unknown key" "$LB" run ok.cfg --bogus=1 -q -o s2.h5
       check 2 "a bad value" "$LB" run ok.cfg --steps=many -q -o s2.h5 ;;
    3) check 3 "a run that fails (step size underflow)" "$LB" run adapt.cfg --tol=1e-300 --h_min=1e-3 -q -o s3.h5 ;;
    4) # a full disk: a 64 KiB tmpfs (as tests/cli/full_disk.sh; needs root or CAP_SYS_ADMIN)
       mkdir -p fs
       if mount -t tmpfs -o size=64k liebench_exit_status_test fs 2>/dev/null; then
         trap 'cd /; umount "$W/fs" 2>/dev/null' EXIT
         check 4 "a full disk" "$LB" run ok.cfg --steps=20000 --sample_every=1 -q -o fs/s4.h5
         compgen -G "fs/s4.h5*tmp*" >/dev/null && bad "status 4 left $(ls fs/s4.h5*tmp*)"
       else
         echo "skip status 4: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
       fi ;;
    5) signalled 5 TERM "SIGTERM in a checkpointed study" "$LB" run ok.cfg --steps=20000000 -o s5.h5 ;;
    128+s)
       signalled $((128 + 15)) TERM "SIGTERM in a study without checkpoints (save_state)" \
         "$LB" run ok.cfg --study=simulate --steps=20000000 --save_state=true --state_every=1000000 -o s128.h5
       signalled $((128 + 10)) USR1 "SIGUSR1 there" \
         "$LB" run ok.cfg --study=simulate --steps=20000000 --save_state=true --state_every=1000000 -o s138.h5 ;;
    *) bad "the table lists status '$row', which this test does not know how to trigger" ;;
  esac
done
for st in "${!seen[@]}"; do
  key=$st; (( st >= 128 )) && key=128+s
  [[ " $listed " == *" $key "* ]] || bad "liebench exited $st, which the table does not list"
done
finish
