#!/usr/bin/env bash
# One process (or one mpiexec) runs every case of a GoogleTest binary, or a shard of them, and
# leaves one XML report per process: PREFIX.rank<r>.xml (tests/gtest_mpi_main.cpp writes it when
# LIEBENCH_GTEST_XML=PREFIX). Each case is then its own CTest test that reads its outcome from the
# reports (case_result.sh), so a case costs no process start of its own (a singleton MPI_Init
# or an mpiexec of up to 4 ranks took 0.2-0.6 s, most of a case's time).
#   run_batch.sh PREFIX REPORTS -- COMMAND...
# Exit 0 when the run wrote REPORTS reports, whatever the cases' outcomes (the cases' own tests
# fail for them; a failing setup test would leave them "not run"); 1 when it ended without them
# (a crash or an abort: its output says where).
set -u
prefix=$1 reports=$2
shift 3
mkdir -p "$(dirname "$prefix")"
rm -f "$prefix".*.xml
LIEBENCH_GTEST_XML="$prefix" "$@"
st=$?
shopt -s nullglob
written=("$prefix".*.xml)
if (( ${#written[@]} != reports )); then
  echo "run_batch: ${#written[@]} of $reports reports written (exit status $st): the run ended early; its cases report no result" >&2
  exit 1
fi
echo "run_batch: $reports report(s) $prefix.*.xml, exit status $st (each case's outcome is its own test)"
exit 0
