# Helpers shared by the studies CLI tests (sourced; .bash so that CTest's tests/cli/*.sh glob
# does not take it for a test).
# Arguments of every test: LIEBENCH SOURCE_DIR SCRATCH_DIR.
set -u
LB="$(realpath "$1")"; SRC="$(realpath "$2")"; W="$3"
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none)
EX="$SRC/experiments/examples"
failures=0

ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

# expect_status NAME STATUS SUBSTRING CMD...: exit status and a substring of stdout+stderr
expect_status() {
  local name=$1 want=$2 text=$3; shift 3
  local out st
  out=$("$@" 2>&1); st=$?
  if [[ $st -ne $want ]]; then bad "$name: exit status $st, expected $want: $out"
  elif [[ -n "$text" && "$out" != *"$text"* ]]; then bad "$name: output lacks '$text': $out"
  else ok "$name"; fi
}

# same_result A B: the two result files are bitwise equal in every dataset and attribute except
# /provenance (host, times) and the wall-clock timings (differences on stdout, status 1).
same_result() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/h5same.py" "$1" "$2"
}

finish() {
  if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
  echo "all passed"; exit 0
}
