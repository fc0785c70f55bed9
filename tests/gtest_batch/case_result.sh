#!/usr/bin/env bash
# One GoogleTest case's outcome from the XML reports of a batch run (run_batch.sh): the command
# of a test that gtest_discover_tests made (this script is the binary's CROSSCOMPILING_EMULATOR).
#   case_result.sh PREFIX COPIES -- COMMAND... --gtest_filter=SUITE.NAME ...
# COPIES: how many reports must hold the case (every rank of an MPI run; 1 for a shard of a
# serial run). Passed: "[       OK ]"; skipped: "[  SKIPPED ]" (the tests' SKIP_REGULAR_EXPRESSION);
# failed, missing or older than the binary: the reason, exit 1. With --gtest_list_tests (CTest's
# discovery) it runs COMMAND itself.
set -u
prefix=$1 copies=$2
shift 3
filter="" binary=""
prev=""
for a in "$@"; do
  case "$a" in
    --gtest_list_tests) exec "$@" ;;
    --gtest_filter=*) filter=${a#--gtest_filter=}; binary=$prev ;;
  esac
  prev=$a
done
[[ -n "$filter" ]] || { echo "case_result: no --gtest_filter in: $*" >&2; exit 2; }
suite=${filter%%.*} name=${filter#*.}
shopt -s nullglob
files=("$prefix".*.xml)
pass=0 skip=0 fail=0
for f in ${files[@]+"${files[@]}"}; do
  if [[ -n "$binary" && "$binary" -nt "$f" ]]; then
    echo "case_result: $f is older than $binary: run its batch test again (ctest runs it first)" >&2
    exit 1
  fi
  # the case's element: self-closing (passed, or not run) or with <failure>/<skipped> children
  r=$(awk -v open="<testcase name=\"$name\" " -v cls="classname=\"$suite\"" '
    !inside && index($0, open) && index($0, cls) {
      if ($0 ~ /status="notrun"/) { print "notrun"; exit }
      if ($0 ~ /\/>[ \t]*$/) { print "passed"; exit }
      inside = 1; res = "passed"; next
    }
    inside {
      if ($0 ~ /<failure/) res = "failed"
      else if ($0 ~ /<skipped/ && res != "failed") res = "skipped"
      if ($0 ~ /<\/testcase>/) { print res; exit }
      if (res == "failed") { line = $0; sub(/.*<!\[CDATA\[/, "", line); sub(/\]\]>.*/, "", line); if (line !~ /^[ \t]*<\/?(failure|skipped)/) print line > "/dev/stderr" }
    }' "$f")
  case "$r" in
    passed) pass=$((pass + 1)) ;;
    skipped) skip=$((skip + 1)) ;;
    failed) fail=$((fail + 1)); echo "  (report $(basename "$f"))" >&2 ;;
    notrun) echo "case_result: $filter was not run (disabled) in $f" ;;
  esac
done
seen=$((pass + skip + fail))
if (( fail > 0 )); then echo "[  FAILED  ] $filter (in $fail of $seen reports)"; exit 1; fi
if (( seen != copies )); then
  echo "case_result: $filter is in $seen of $copies reports ${prefix}.*.xml (${#files[@]} found): its batch run ended early or did not run it" >&2
  exit 1
fi
if (( skip > 0 )); then echo "[  SKIPPED ] $filter"; exit 0; fi
echo "[       OK ] $filter ($pass report(s))"
