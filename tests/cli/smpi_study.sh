#!/usr/bin/env bash
# The simulated-cluster study's one command (scripts/smpi/study.sh, issue 17) on a small subset:
# SimGrid, both builds, the runs, the tables and plot of the suite's formats. Particles N = 4000
# on 1 and 4 simulated ranks of ib (seconds); the calibration is kept (--no-calibrate: the test
# must not rewrite scripts/smpi/calibration.env). 77 only where SimGrid cannot be installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
set -o pipefail
export LIEBENCH_BUILD_DIR="$(dirname "$LB")"
bash "$SRC/scripts/smpi/install.sh"
st=$?
if [[ $st -eq 77 ]]; then echo "skipped: SimGrid cannot be installed here (see above)"; exit 77; fi
[[ $st -eq 0 ]] || { echo "FAIL scripts/smpi/install.sh exit $st"; exit 1; }
cal="$SRC/scripts/smpi/calibration.env"
cal_before=$(md5sum < "$cal" 2>/dev/null)

# bad input: one line naming the argument, exit 2, nothing written
mkdir -p bad
expect_status "unknown argument" 2 "unknown argument '--rank=4'" \
  env LIEBENCH_SMPI_RESULTS="$W/bad" bash "$SRC/scripts/smpi/study.sh" --no-calibrate --rank=4
[[ -z "$(ls bad)" ]] && ok "nothing written after bad input" || bad "files after bad input: $(ls bad)"

out="$W/results"
LIEBENCH_SMPI_RESULTS="$out" bash "$SRC/scripts/smpi/study.sh" --no-calibrate --cases=particles_4000 --ranks=1,4 \
  --platforms=ib > study.out 2> study.err
st=$?
[[ $st -eq 0 ]] && ok "study.sh exit 0" || { bad "study.sh exit $st: $(tail -5 study.err)"; }
for f in strong_summaries.txt strong_scaling.h5 strong_scaling.md strong_scaling.csv strong_scaling.png \
         strong_scaling_efficiency.md; do
  [[ -s "$out/$f" ]] && ok "written: $f" || bad "missing: $out/$f"
done
[[ $(grep -c '^case=particles_4000 kind=strong ' "$out/strong_summaries.txt") == 2 ]] \
  && ok "two simulated runs (1 and 4 ranks) in the summaries" || bad "summaries: $(cat "$out/strong_summaries.txt")"
# the same final state on 1 and 4 simulated ranks
[[ $(sed -n 's/.* state_hash=\([0-9a-f]*\).*/\1/p' "$out/strong_summaries.txt" | sort -u | wc -l) == 1 ]] \
  && ok "one state hash on 1 and 4 ranks" || bad "state hashes differ"
# the compact table: the particles' row with the simulated efficiency and the model's beside it
grep -Eq '^\| particles_4000 N = 4000, `ib` \| [0-9]+ % \([0-9]+ %\)' "$out/strong_scaling_efficiency.md" \
  && ok "efficiency row with the model beside it" || bad "efficiency table: $(cat "$out/strong_scaling_efficiency.md")"
grep -q "model" "$out/strong_scaling.md" && ok "report table has the model columns" || bad "no model column in strong_scaling.md"
[[ "$(md5sum < "$cal")" == "$cal_before" ]] && ok "calibration.env untouched (--no-calibrate)" || bad "calibration.env changed"
finish
