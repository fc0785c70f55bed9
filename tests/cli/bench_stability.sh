#!/usr/bin/env bash
# The benchmark programs time only runs that stay finite (issue 27 "Honest baselines"): where the
# relative energy error at the end of the timed steps is not finite or above --max_energy_error
# (1e-3), bench_pendulum_chain, baseline_odeint_pendulum and baseline_eigen_rkmk4 print their line
# with status=failed and every time field "failed", one line on stderr, exit status 3; and
# scripts/bench/report.py turns such a sample into a row that says "failed (...)", never a figure.
# Also the measured stability law of the paper's chain state (results/performance/notes.md):
# RKMK4's stable step is 2.0/N, so at N = 1000 200 steps of 1.6e-3 stay on the energy and 2.5e-3
# blow up; --dt=auto takes a step inside the range. Tiny runs (N <= 1000), no timing asserted.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
BUILD="$(dirname "$LB")"
T="$BUILD/tests"
for p in bench_pendulum_chain baseline_odeint_pendulum baseline_eigen_rkmk4; do
  [[ -x "$T/$p" ]] || { bad "$T/$p missing (configure with -DLIEBENCH_BUILD_BENCHMARKS=ON and build)"; finish; }
done

# key=value of the line in out.txt
val() { tr ' ' '\n' < out.txt | sed -n "s/^$1=//p" | head -1; }

# refused_run NAME CMD...: exit 3, status=failed, no number in a time field, one line on stderr
refused_run() {
  local name=$1; shift
  local st=0
  "$@" > out.txt 2> err.txt || st=$?
  local times
  times=$(tr ' ' '\n' < out.txt | grep -E '^(seconds|s_per_step|s_per_100_steps|ns_per_link_step|ns_per_link_step_core|s_per_rhs|ns_per_link_rhs)=' | grep -v '=failed$')
  if [[ $st -ne 3 ]]; then bad "$name: exit status $st, expected 3: $(cat out.txt err.txt)"
  elif [[ "$(val status)" != failed ]]; then bad "$name: status=$(val status)"
  elif [[ -n "$times" ]]; then bad "$name: a time reported: $times"
  elif [[ $(wc -l < err.txt) -ne 1 ]] || ! grep -q 'energy error' err.txt; then bad "$name: stderr: $(cat err.txt)"
  else ok "$name"; fi
}
# timed_run NAME CMD...: exit 0, status=ok, finite time, energy error <= 1e-3
timed_run() {
  local name=$1; shift
  local st=0
  "$@" > out.txt 2> err.txt || st=$?
  if [[ $st -ne 0 ]]; then bad "$name: exit status $st: $(cat out.txt err.txt)"
  elif [[ "$(val status)" != ok ]]; then bad "$name: status=$(val status)"
  elif ! awk -v s="$(val s_per_step)" -v e="$(val rel_energy_error)" 'BEGIN { exit !(s + 0 > 0 && e + 0 <= 1e-3 && e == e + 0) }'; then
    bad "$name: s_per_step=$(val s_per_step) rel_energy_error=$(val rel_energy_error)"
  else ok "$name"; fi
}

C="$T/bench_pendulum_chain"
refused_run "chain, paper state, N = 1000, h = 1e-2 (5x the stable step)" "$C" --N=1000 --initial=paper --dt=1e-2 --steps=3
refused_run "chain, paper state, N = 1000, h = 2.5e-3 over 200 steps (1.25x)" "$C" --N=1000 --initial=paper --dt=2.5e-3 --steps=200
timed_run "chain, paper state, N = 1000, h = 1.6e-3 over 200 steps (0.8x)" "$C" --N=1000 --initial=paper --dt=1.6e-3 --steps=200
timed_run "chain, paper state, N = 1000, --dt=auto" "$C" --N=1000 --initial=paper --dt=auto --steps=3
awk -v h="$(val dt)" 'BEGIN { exit !(h > 0 && h <= 0.5 * 2.0 / 1000) }' && ok "auto step $(val dt) within half of 2.0/N" \
  || bad "auto step $(val dt) at N = 1000 is not within half of the stable step 2.0/N"
timed_run "chain, random state, N = 1000, --dt=auto" "$C" --N=1000 --initial=random --steps=3
[[ "$(val dt)" == 0.001 && "$(val warmup_steps)" == 1 && "$(val steps)" == 3 ]] && ok "random: auto = 1e-3, 1 warm-up + 3 timed steps" \
  || bad "random: dt=$(val dt) warmup_steps=$(val warmup_steps) steps=$(val steps)"
refused_run "chain, tight --max_energy_error" "$C" --N=100 --initial=random --steps=3 --max_energy_error=0
refused_run "Odeint RK4 baseline, N = 100, h = 0.3" "$T/baseline_odeint_pendulum" --N=100 --dt=0.3 --min_time=0
timed_run "Odeint RK4 baseline, N = 100, h = 1e-3" "$T/baseline_odeint_pendulum" --N=100 --dt=1e-3 --min_time=0.02
awk -v n="$(val steps)" 'BEGIN { exit !(n >= 3) }' && ok "Odeint: $(val steps) timed steps (>= 3)" || bad "Odeint: steps=$(val steps)"
refused_run "Eigen RKMK4 baseline, N = 20, h = 0.2" "$T/baseline_eigen_rkmk4" --N=20 --dt=0.2 --min_time=0
timed_run "Eigen RKMK4 baseline, N = 20, h = 1e-3" "$T/baseline_eigen_rkmk4" --N=20 --dt=1e-3 --min_time=0.02

# report.py: a failed sample gives a "failed (...)" row with met "not measured", never a figure.
cat > raw.txt <<'RAW'
machine cpu_model=test cores=2 mhz=1000
machine flags=avx2 load_before=0,0,0 load_after=0,0,0 quick=1 repeat=1
tag=small_rkmk4_N2 rep=1 ranks=1 threads=1 N=2 method=rkmk4 initial=random dt=0.001 status=failed s_per_step=failed rel_energy_error=nan max_energy_error=0.001
tag=small_eigen_N2 rep=1 program=eigen_rkmk4 N=2 status=ok s_per_step=6e-07 rel_energy_error=1e-11 max_energy_error=0.001 max_diff_vs_suite_rkmk4_dexpinv2=1e-16
tag=small_lie_euler_N2 rep=1 ranks=1 threads=1 N=2 method=lie_euler status=ok s_per_step=1e-07 rel_energy_error=1e-05 max_energy_error=0.001
tag=small_odeint_N2 rep=1 program=odeint_rk4 N=2 status=ok s_per_step=1.5e-07 rel_energy_error=1e-11 max_energy_error=0.001 rhs_vs_suite=1e-17
RAW
if /usr/bin/python3 "$SRC/scripts/bench/report.py" raw.txt . "$SRC/results/performance/notes.md" 2> report.err; then
  row=$(grep -F '| 2. N = 2: RKMK4 step vs hand-written Eigen RKMK4 |' performance.md)
  if [[ "$row" == *"failed (small_rkmk4_N2 #1: energy error nan > 0.001, no time)"* && "$row" == *"| not measured |"* ]]; then
    ok "report.py: the failed sample's row says failed"
  else bad "report.py row: $row"; fi
  row=$(grep -F '| 2. N = 2: Lie-Euler step vs Odeint RK4 step |' performance.md)
  [[ "$row" != *failed* && "$row" == *"| yes |"* ]] && ok "report.py: rows of good samples keep their figures" || bad "report.py row: $row"
  # one repeat each and no clock: nothing to judge the machine by, so not quiet
  grep -q '^Quiet: no (spread of the repeats over 0 timed quantities' performance.md \
    && ok "report.py: no repeats, no verdict of quiet" || bad "report.py quiet line: $(sed -n 3p performance.md)"
else
  bad "report.py failed: $(cat report.err)"
fi

# report.py's verdict on the machine: the spread of the alternating repeats and the clock before
# and after (quiet: median spread <= 5 %, largest <= 20 %, clocks within 2 %)
quiet_raw() {  # CLOCK_AFTER SECOND_SUITE_SECONDS
  cat <<RAW
machine cpu_model=test cores=2 mhz=1000
machine flags=avx2 load_before=0,0,0 load_after=0,0,0 quick=0 repeat=3
tag=fma_peak rep=1 clock_ghz=3.67 fma_peak_gflops=58.7 flops_per_cycle=16 pair_mix_mpairs=530
tag=small_odeint_N2 rep=1 program=odeint_rk4 N=2 status=ok s_per_step=1.50e-07
tag=small_odeint_N2 rep=2 program=odeint_rk4 N=2 status=ok s_per_step=1.52e-07
tag=small_odeint_N2 rep=3 program=odeint_rk4 N=2 status=ok s_per_step=1.51e-07
tag=thesis rep=1 program=thesis ranks=1 steps=100000 suite_seconds=10.0 lammps_seconds=19.0
tag=thesis rep=2 program=thesis ranks=1 steps=100000 suite_seconds=$2 lammps_seconds=19.2
tag=fma_peak rep=2 clock_ghz=$1 fma_peak_gflops=58.7 flops_per_cycle=16 pair_mix_mpairs=530
RAW
}
verdict() { quiet_raw "$1" "$2" > q.txt; /usr/bin/python3 "$SRC/scripts/bench/report.py" q.txt . "$SRC/results/performance/notes.md" \
  > /dev/null 2>&1 && sed -n 3p performance.md; }
v=$(verdict 3.66 10.1)
[[ "$v" == "Quiet: yes (spread of the repeats over 3 timed quantities: median 1.1 %, largest 1 % ("* ]] \
  && ok "report.py: steady repeats and clock: quiet" || bad "report.py steady: $v"
v=$(verdict 3.66 13.0)
[[ "$v" == "Quiet: no "*"largest 30 % (thesis suite_seconds ranks=1 program=thesis)"* ]] \
  && ok "report.py: a repeat 30 % off: not quiet, and which" || bad "report.py 30 % spread: $v"
v=$(verdict 3.40 10.1)
[[ "$v" == "Quiet: no "*"clock 3.67/3.4 GHz"* ]] && ok "report.py: the clock 7 % lower after: not quiet" \
  || bad "report.py clock: $v"
finish
