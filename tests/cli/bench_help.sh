#!/usr/bin/env bash
# Every benchmark and baseline program (tests/benchmarks/*.cpp, issue 27 "Honest baselines")
# answers --help and -h with its usage on stdout naming each of its options (exit 0, nothing on
# stderr), and refuses an unknown argument and a malformed value with one line on stderr that
# names the argument and points to --help (exit 2, nothing on stdout). The Google Benchmark
# programs list the library's flags too and still take them (--benchmark_list_tests=true).
# The programs run as MPI singletons (no mpirun, whose own banner would add lines).
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
BUILD="$(dirname "$LB")"

# The options each program documents (a new program fails here until it is listed).
declare -A OPTS=(
  [bench_pendulum_chain]="--N --steps --warmup --dt --method --initial --length --total_length --blocks --max_energy_error"
  [bench_pendulum_rhs]="--benchmark_filter --benchmark_min_time"
  [bench_dipolar_kernel]="--benchmark_filter --benchmark_min_time"
  [bench_dipolar_run]="--mode --n --evals --steps --h --method --spread --fast"
  [bench_groups]="--rounds --min_time --samples"
  [baseline_eigen_rkmk4]="--N --dt --min_time --check_steps --max_energy_error"
  [baseline_odeint_pendulum]="--N --dt --min_time --check --max_energy_error"
  [bench_fma_peak]="--seconds --repeats"
)
# A malformed value for each (the argument that the one line must name).
declare -A MALFORMED=(
  [bench_pendulum_chain]="--steps=three"
  [bench_pendulum_rhs]="--benchmark_min_time=abc"
  [bench_dipolar_kernel]="--benchmark_min_time=abc"
  [bench_dipolar_run]="--n=-5"
  [bench_groups]="--min_time=fast"
  [baseline_eigen_rkmk4]="--dt=1e-3x"
  [baseline_odeint_pendulum]="--N=abc"
  [bench_fma_peak]="--seconds=fast"
)

# refused NAME WANT CMD...: exit status 2, stdout empty, exactly one line on stderr naming WANT and --help
refused() {
  local name=$1 want=$2; shift 2
  local st=0
  "$@" > out.txt 2> err.txt || st=$?
  local lines
  lines=$(wc -l < err.txt)
  if [[ $st -ne 2 ]]; then bad "$name: exit status $st, expected 2: $(cat err.txt)"
  elif [[ -s out.txt ]]; then bad "$name: wrote to stdout: $(head -3 out.txt)"
  elif [[ $lines -ne 1 ]]; then bad "$name: $lines lines on stderr, expected 1: $(cat err.txt)"
  elif ! grep -qF -- "$want" err.txt || ! grep -qF -- "--help" err.txt; then bad "$name: line lacks '$want' or '--help': $(cat err.txt)"
  else ok "$name"; fi
}

n=0
for src in "$SRC"/tests/benchmarks/*.cpp; do
  p=$(basename "$src" .cpp)
  exe="$BUILD/tests/$p"
  n=$((n + 1))
  if [[ -z "${OPTS[$p]:-}" ]]; then bad "$p: not listed in tests/cli/bench_help.sh (add its options)"; continue; fi
  if [[ ! -x "$exe" ]]; then bad "$p: $exe missing (configure with -DLIEBENCH_BUILD_BENCHMARKS=ON and build)"; continue; fi
  for h in --help -h; do
    st=0
    "$exe" "$h" > out.txt 2> err.txt || st=$?
    if [[ $st -ne 0 ]]; then bad "$p $h: exit status $st: $(cat err.txt)"; continue; fi
    [[ -s err.txt ]] && bad "$p $h: wrote to stderr: $(cat err.txt)"
    grep -q "^usage: $p" out.txt || bad "$p $h: no 'usage: $p' line"
    missing=""
    for o in ${OPTS[$p]} --help; do grep -qE -- "(^|[[ ,])$o([]= ]|\$)" out.txt || missing+=" $o"; done
    [[ -z "$missing" ]] && ok "$p $h lists its options" || bad "$p $h: usage lacks$missing"
  done
  # every option of the usage text has a default in brackets or is a flag (--help, --fast)
  if grep -E '^  --[a-z_]+=' out.txt | grep -vqE '\[[^]]*\]$'; then
    bad "$p: an option without its default: $(grep -E '^  --[a-z_]+=' out.txt | grep -vE '\[[^]]*\]$' | head -1)"
  fi
  refused "$p: unknown argument" "--no-such-option" "$exe" --no-such-option=1
  refused "$p: malformed value" "${MALFORMED[$p]}" "$exe" "${MALFORMED[$p]}"
done
[[ $n -ge 7 ]] && ok "$n programs checked" || bad "only $n programs in $SRC/tests/benchmarks"

# Missing values and flags given values are refused the same way.
refused "bench_dipolar_run: option without its value" "--n" "$BUILD/tests/bench_dipolar_run" --n
refused "bench_dipolar_run: flag with a value" "--fast" "$BUILD/tests/bench_dipolar_run" --fast=1
# Google Benchmark's flags still work after the program's parser.
st=0
"$BUILD/tests/bench_pendulum_rhs" --benchmark_list_tests=true --benchmark_filter='Rhs' > out.txt 2> err.txt || st=$?
[[ $st -eq 0 ]] && grep -q 'BM_RhsTridiagonal/100' out.txt && ! grep -q 'BM_Step' out.txt \
  && ok "bench_pendulum_rhs takes --benchmark_list_tests and --benchmark_filter" \
  || bad "bench_pendulum_rhs with library flags: status $st: $(head -5 out.txt err.txt)"
finish
