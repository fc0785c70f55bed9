#!/usr/bin/env bash
# Checkpoint and restart of studies with several runs (issue 14): a convergence grid (methods x
# steps, with its reference run) and an adaptive grid (methods x tol, with its reference and its
# constant-step comparison runs), chain (nfold_pendulum) and dipoles (dipolar), stopped with
# SIGTERM / SIGUSR1 / SIGKILL at random moments of their progress (lib_checkpoint.bash) and run
# again, also on another number of ranks, several times, until they finish: the final file is
# bitwise equal to an uninterrupted run (every dataset and attribute except /provenance and the
# wall-clock timings). One part of a --part job continues from its own checkpoint. Checkpoints of
# another experiment (methods, grid, N, part), a corrupt one (also one flipped bit) and the checkpoint keys where
# checkpoints are not written (scaling, ranks_per_run) are refused with exit status 2, one line.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

# Each a few seconds of work on one core (so that the kills land inside a run); the settings are
# the suite's choice for the test, not a source's.
# (4x the steps of the first version: the small-system path made the 8-link study short enough
# for a loaded machine to finish it between two progress polls)
cat > conv_chain.cfg <<'CFG'
study = convergence
model = nfold_pendulum
methods = rkmk4, rkmk5
steps = 16000, 32000, 64000
t_final = 4
reference.method = rkmk5
reference.steps = 128000
[nfold_pendulum]
N = 8
blocks = 2
initial = paper
CFG
cat > adapt_dipoles.cfg <<'CFG'
study = adaptive
model = dipolar
methods = rkmk54
tol = 1e-6, 1e-8, 1e-10
t_final = 100  # long enough (~3 s on 2 ranks) for three signals to land inside the run
reference.method = rkmk54
reference.tol = 1e-12
adaptive.compare_method = rkmk5
[dipolar]
N = 6
initial = random
seed = 1
CFG
# periodic checkpoints (part of the experiment, so the uninterrupted run has the same keys):
# a SIGKILL loses at most 50 steps of a run
cat > conv_dipoles.cfg <<'CFG'
study = convergence
model = dipolar
methods = rkmk4, cf4
steps = 400, 800
t_final = 1
reference.method = rkmk5
reference.steps = 1600
checkpoint_every = 50
[dipolar]
N = 6
initial = random
seed = 2
CFG

# check_grid NAME CFG REF_RANKS SIGNALS RUNNERS [KEYS...]
check_grid() {
  local name=$1 cfg=$2 ranks=$3 sigs=$4 runners=$5; shift 5
  "${MPIRUN[@]}" -n "$ranks" "$LB" run "$cfg" "$@" -o "ref_$name.h5" -q "${PROGRESS[@]}" ||
    { bad "$name: uninterrupted run failed"; return; }
  stop_and_restart "$name" "int_$name.h5" "$sigs" "$runners" run "$cfg" "$@" || return
  if same_result "ref_$name.h5" "int_$name.h5"; then ok "$name: stopped $STOPS times, result bitwise equal to the uninterrupted run"
  else bad "$name: results differ"; fi
}

check_grid conv_chain conv_chain.cfg 1 "TERM USR1 TERM USR1" "1 2"        # 1 rank, continued on 2 and back
check_grid adapt_dipoles adapt_dipoles.cfg 2 "USR1 TERM USR1" "2 1"      # 2 ranks, continued on 1 and back
check_grid conv_dipoles_kill conv_dipoles.cfg 2 "KILL KILL TERM" "2"     # SIGKILL: from the last periodic checkpoint
check_grid part conv_chain.cfg 1 "TERM" "1" --part=2/2                   # one part of a --part job

# Refused: another experiment, another part, a corrupt file; exit 2, one line, the checkpoint kept.
"$LB" run conv_chain.cfg -o bad.h5 "${PROGRESS[@]}" > run.log 2>&1 &
pid=$!
wait_for_percent run.log $pid 40 && kill -TERM $pid
wait $pid; st=$?
if [[ $st -eq 5 ]]; then
  sum=$(md5sum < bad.h5.ckpt.h5)
  refused() {  # NAME TEXT ARGS...: exit 2, one line containing TEXT
    local name=$1 text=$2 out st; shift 2
    out=$("$LB" run conv_chain.cfg -o bad.h5 -q "$@" 2>&1); st=$?
    if [[ $st -ne 2 || "$out" != *"$text"* ]]; then bad "$name: exit status $st: $out"
    elif [[ $(printf '%s\n' "$out" | wc -l) -ne 1 ]]; then bad "$name: not one line: $out"
    else ok "$name"; fi
  }
  refused "another method list refused" "methods = rkmk4, rkmk5 there, rkmk4 here" --methods=rkmk4
  refused "another step grid refused" "steps = 16000, 32000, 64000 there, 16000,32000 here" --steps=16000,32000
  refused "another N refused" "nfold_pendulum.N = 8 there, 6 here" --nfold_pendulum.N=6
  refused "another reference refused" "reference.steps = 128000 there, 64000 here" --reference.steps=64000
  refused "another part refused" "(part) = 1/1 there, 1/2 here" --part=1/2
  refused "another model refused" "model 'nfold_pendulum'" --model=dipolar
  [[ "$(md5sum < bad.h5.ckpt.h5)" == "$sum" ]] && ok "refused checkpoint kept intact" || bad "checkpoint changed"
  [[ -e bad.h5 ]] && bad "a refused restart wrote a result file"
  cp bad.h5.ckpt.h5 corrupt.ckpt.h5
  printf 'NOTHDF5!' | dd of=corrupt.ckpt.h5 bs=1 seek=0 conv=notrunc status=none
  refused "corrupt checkpoint refused" "checkpoint corrupt.ckpt.h5 is refused" --restart corrupt.ckpt.h5
  # one flipped bit in the raw numbers of a stored state (HDF5 does not checksum raw data)
  /usr/bin/python3 - <<'PY'
import h5py
with h5py.File("bad.h5.ckpt.h5", "r") as f:
    name = "finished/e_00000/state" if "finished/e_00000" in f else "current/state"
    offset = f[name].id.get_offset()
b = bytearray(open("bad.h5.ckpt.h5", "rb").read())
b[offset + 13] ^= 0x01
open("flipped.ckpt.h5", "wb").write(bytes(b))
PY
  refused "checkpoint with a flipped bit refused" "do not match their seal" --restart flipped.ckpt.h5
  head -c 20000 bad.h5.ckpt.h5 > trunc.ckpt.h5
  refused "truncated checkpoint refused" "checkpoint trunc.ckpt.h5 is refused" --restart trunc.ckpt.h5
  expect_status "the kept checkpoint still continues" 0 "" "$LB" run conv_chain.cfg -o bad.h5 -q "${PROGRESS[@]}"
  same_result ref_conv_chain.h5 bad.h5 && ok "continued after the refusals: same bits" || bad "bad.h5 differs"
else
  bad "refusal setup: exit $st: $(tail -3 run.log)"
fi

# Where checkpoints are not written, their keys are refused (one line, exit 2).
expect_status "checkpoint keys with scaling refused" 2 "study = scaling measures wall time" \
  "$LB" run "$EX/frb_scaling.cfg" --checkpoint_every=10 -o scaling.h5 -q
expect_status "checkpoint keys with ranks_per_run refused" 2 "ranks_per_run are not checkpointed" \
  "${MPIRUN[@]}" -n 2 "$LB" run conv_chain.cfg --ranks_per_run=1 --checkpoint_seconds=60 -o groups.h5 -q
finish
