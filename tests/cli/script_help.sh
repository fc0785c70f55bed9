#!/usr/bin/env bash
# Every script under scripts/ (the README's commands, the benchmark, SMPI and table scripts)
# answers --help and -h with its header -- what it does, its arguments, its environment; the
# Python programs their docstring -- on stdout, exit 0, nothing on stderr, and does nothing else:
# before, `scripts/setup.sh --help` configured the build, `scripts/check_deb.sh --help` built and
# installed the package, the bench scripts took "--help" for a build directory and
# `scripts/update_docs.sh --help` ran it as a command. Checked with every program a script could
# start (package managers, build tools, MPI, SLURM, LAMMPS, Python, liebench) replaced on PATH by
# a stub that records its call: a script that starts anything, or takes more than 20 s, fails. A
# new script without the help fails too.
# Bad arguments of the scripts that take counts, files or a binary: one line, exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

STUBS="$W/stubs"
CALLS="$W/calls.log"
mkdir -p "$STUBS"
: > "$CALLS"
for prog in apt-get apt dpkg sudo cmake ctest cpack ninja make g++ mpicxx mpirun mpiexec smpirun smpicxx \
            srun sbatch salloc scontrol squeue slurmctld slurmd munged lmp python3 python pdflatex \
            h5dump liebench git perf chromium; do
  printf '#!/bin/sh\necho "%s $*" >> "%s"\nexit 99\n' "$prog" "$CALLS" > "$STUBS/$prog"
  chmod +x "$STUBS/$prog"
done

# check_help NAME FLAG FIRST_LINE CMD...: CMD (stubs first on PATH, 20 s at most) exits 0, starts
# nothing, writes nothing on stderr and its stdout begins with FIRST_LINE
check_help() {
  local name=$1 flag=$2 first=$3 out st err calls
  shift 3
  : > "$CALLS"
  out=$(cd "$W" && PATH="$STUBS:$PATH" LIEBENCH_BIN="$STUBS/liebench" timeout 20 "$@" 2> "$W/err")
  st=$?
  err=$(cat "$W/err")
  calls=$(cat "$CALLS")
  if [[ $st -ne 0 ]]; then bad "$name $flag: exit status $st, expected 0 (stderr: ${err:0:200})"
  elif [[ -n "$calls" ]]; then bad "$name $flag: started a program: ${calls:0:200}"
  elif [[ -n "$err" ]]; then bad "$name $flag: wrote to stderr: ${err:0:200}"
  elif [[ "$(head -n 1 <<< "$out")" != "$first"* ]]; then bad "$name $flag: stdout does not start with '$first': ${out:0:200}"
  else ok "$name $flag"; fi
}

mapfile -t SCRIPTS < <(cd "$SRC" && find scripts -name '*.sh' -not -path 'scripts/lib/*' | sort)
[[ ${#SCRIPTS[@]} -ge 20 ]] || bad "found only ${#SCRIPTS[@]} scripts under scripts/"
for s in "${SCRIPTS[@]}"; do
  # the header's first line, as the script's help must print it
  first=$(awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; exit } { exit }' "$SRC/$s")
  [[ -n "$first" ]] || { bad "$s: no header comment to print as its help"; continue; }
  for flag in --help -h; do check_help "$s" "$flag" "$first" bash "$SRC/$s" "$flag"; done
done
# The Python programs under scripts/ likewise: the module docstring (argparse's usage where a
# program has a parser); the modules they import (no sys.argv, no __main__) are not programs.
mapfile -t PROGRAMS < <(cd "$SRC" && grep -l -E 'sys\.argv|__main__' $(find scripts -name '*.py') | sort)
[[ ${#PROGRAMS[@]} -ge 15 ]] || bad "found only ${#PROGRAMS[@]} Python programs under scripts/"
for s in "${PROGRAMS[@]}"; do
  if grep -q argparse "$SRC/$s"; then first="usage: $(basename "$s")"
  else first=$(/usr/bin/python3 -c 'import ast, sys; d = ast.get_docstring(ast.parse(open(sys.argv[1]).read())); print(d.splitlines()[0] if d else "")' "$SRC/$s"); fi
  [[ -n "$first" ]] || { bad "$s: no docstring to print as its help"; continue; }
  for flag in --help -h; do check_help "$s" "$flag" "$first" /usr/bin/python3 "$SRC/$s" "$flag"; done
done
# slurm/submit.sh (installed with the suite) has its own option list: on stdout with --help, exit 0
for flag in --help -h; do
  : > "$CALLS"
  out=$(PATH="$STUBS:$PATH" timeout 10 bash "$SRC/slurm/submit.sh" "$flag" 2> "$W/err"); st=$?
  if [[ $st -ne 0 || -s "$W/err" || -s "$CALLS" || "$out" != "usage:"*"--parts K"* ]]; then
    bad "slurm/submit.sh $flag: status $st, stderr '$(head -c 200 "$W/err")', calls '$(cat "$CALLS")'"
  else ok "slurm/submit.sh $flag"; fi
done
expect_status "slurm/submit.sh without arguments: its usage, exit 2" 2 "usage:" bash "$SRC/slurm/submit.sh"
# Bad arguments: one line on stderr naming the argument, exit 2, nothing started (before, a
# non-numeric count reached mpirun or a Python traceback, a missing LIEBENCH a bash error 127).
BUILD="$(dirname "$LB")"
bad_args=(
  "scripts/run_layouts.sh|EXP.cfg '$W/none.cfg' is not a readable file|$W/none.cfg $W/o.h5"
  "scripts/update_docs.sh|LIEBENCH '$W/none' is not an executable|$W/none"
  "scripts/update_docs.sh|DIR/README.md '$W/README.md' is not a readable file|$LB $W"
  "scripts/bench/all.sh|--repeat=0; give a positive integer|--repeat 0"
  "scripts/bench/chain_efficiency.sh|N=foo; give a positive integer|$BUILD foo"
  "scripts/bench/chain_large.sh|STEPS7=0; give a positive integer|$BUILD 0"
  "scripts/bench/dipolar_efficiency.sh|EVALS=x; give a positive integer|$BUILD 4000 x"
  "scripts/bench/dipolar_thesis_workload.sh|STEPS=-5; give a positive integer|$BUILD 1 1 -5"
  "scripts/bench/dipolar_vs_lammps.sh|REPEATS=x; give a positive integer|$BUILD x"
  "scripts/bench/thesis_workload.sh|STEPS=abc; give a positive integer|$BUILD abc"
  "scripts/bench/wp_repeatability.sh|DECK '$W/none.cfg' is not a readable file|$W/none.cfg"
  "scripts/bench/wp_repeatability.sh|N=zero; give a positive integer|$SRC/experiments/benchmark/wp_double_pendulum.cfg zero"
)
# and the Python programs that took such arguments to a traceback (or exit 1)
bad_args+=(
  "scripts/bench/report.py|report.py: give RAW OUTDIR NOTES|"
  "scripts/bench/report.py|report.py: give RAW OUTDIR NOTES|$W/none.txt $W/out $W/notes.md"
  "scripts/bench/lammps/thesis_state.py|thesis_state.py: give N SEED OUTDIR|one 7 $W/state"
  "scripts/plots/plot_sphere_md.py|plot_sphere_md: $W/none.h5: not an HDF5 file|$W/none.h5"
  "scripts/plots/plot_study.py|plot_study: $W/none.h5: not an HDF5 file|$W/none.h5"
  "scripts/tables/paper_table.py|usage: paper_table.py EXPERIMENT.cfg RESULT.h5 OUT_DIR|$W/none.cfg"
)
for case_ in "${bad_args[@]}"; do
  IFS='|' read -r s want args <<< "$case_"
  interp=(bash); [[ $s == *.py ]] && interp=(/usr/bin/python3)
  : > "$CALLS"
  # shellcheck disable=SC2086  # args: words
  out=$(cd "$W" && PATH="$STUBS:$PATH" timeout 20 "${interp[@]}" "$SRC/$s" $args 2> "$W/err"); st=$?
  err=$(cat "$W/err")
  if [[ $st -ne 2 || -n "$out" || -s "$CALLS" || $(wc -l < "$W/err") -ne 1 || "$err" != *"$want"* ]]; then
    bad "$s $args: status $st (want 2), stdout '${out:0:100}', calls '$(cat "$CALLS")', stderr: ${err:0:300}"
  else ok "$s $args: ${err:0:120}"; fi
done
# the help text is the whole header: a usage line of setup.sh reaches the user
expect_status "setup.sh --help shows --deps" 0 "scripts/setup.sh --deps" bash "$SRC/scripts/setup.sh" --help
# arguments other than the help keep their meaning (run_layouts.sh's usage line on a missing file)
expect_status "run_layouts.sh without arguments: its usage, exit 2" 2 "usage:" bash "$SRC/scripts/run_layouts.sh"

finish
