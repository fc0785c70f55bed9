#!/usr/bin/env bash
# The commands that only read files and print (report, list, tableau, clean, --help, --version;
# CommandEntry::needs_mpi = false) start without MPI when no launcher started them: no singleton
# MPI_Init, which brought up Open MPI's runtime for about 0.35 s of the 0.4 s of a `liebench
# report`. Checked by what that runtime leaves: its session directory (ompi.<host>.<uid>) in
# TMPDIR, which `liebench run` creates (the control: the probe can fail) and these commands do not;
# their output and exit status are the same as before, and under mpirun rank 0 alone prints.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

"$LB" run "$EX/frb_convergence.cfg" --steps=4,8 -o frb.h5 --force -q >/dev/null 2>&1 \
  && ok "a result file to read" || bad "liebench run frb_convergence.cfg failed"

session_dirs() { find "$1" -maxdepth 1 -name 'ompi.*' | wc -l; }

# the control: a run starts the MPI runtime, and the probe sees it
mkdir -p t_run
TMPDIR="$PWD/t_run" "$LB" run "$EX/frb_convergence.cfg" --steps=4 -o ctl.h5 --force -q >/dev/null 2>&1
[[ $(session_dirs t_run) -ge 1 ]] && ok "liebench run leaves Open MPI's session directory in TMPDIR (the probe works)" \
  || bad "liebench run left no ompi.* in TMPDIR: the probe cannot tell"

check() {  # NAME EXPECTED_STATUS SUBSTRING ARGS...: exit status, output, and no MPI runtime started
  local name=$1 want=$2 text=$3; shift 3
  local dir="t_$name" out st
  mkdir -p "$dir"
  out=$(TMPDIR="$PWD/$dir" "$LB" "$@" 2>&1); st=$?
  if [[ $st -ne $want ]]; then bad "$name: exit status $st, expected $want: $(head -3 <<<"$out")"
  elif [[ "$out" != *"$text"* ]]; then bad "$name: output lacks '$text': $(head -3 <<<"$out")"
  elif [[ $(session_dirs "$dir") -ne 0 ]]; then bad "$name: started the MPI runtime (an ompi.* in TMPDIR)"
  else ok "$name: exit $want, its output, no MPI runtime"; fi
}
check report 0 "free rigid body" report frb.h5
check report_csv 0 "," report frb.h5 --format csv --table convergence
check report_missing 2 "cannot open" report no_such_file.h5
check list 0 "rkmk4" list methods
check tableau 0 "order" tableau rkmk4
check clean 0 "" clean .
check help 0 "usage:" --help
check version 0 "liebench" --version

# under a launcher MPI is initialized as before, and rank 0 speaks for all
n=$("${MPIRUN[@]}" -n 2 "$LB" report frb.h5 --list-tables 2>&1 | grep -c '^convergence$')
[[ $n -eq 1 ]] && ok "mpirun -n 2 liebench report: one rank prints" || bad "mpirun -n 2 liebench report printed its tables $n times"
n=$("${MPIRUN[@]}" -n 2 "$LB" list methods 2>&1 | grep -c '^  rkmk4 ')
[[ $n -eq 1 ]] && ok "mpirun -n 2 liebench list: one rank prints" || bad "mpirun -n 2 liebench list printed rkmk4 $n times"
finish
