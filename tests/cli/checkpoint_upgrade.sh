#!/usr/bin/env bash
# A checkpoint written by an earlier liebench, which lacked keys added to the suite since (a new
# study kind's keys, say), continues bit for bit when those keys have their default values here; a key the checkpoint lacks with another value here, or a key missing that
# is not new, is refused with one line naming it. (The earlier version is simulated by removing
# lines from the checkpoint's identity, its attribute `config`, its attributes' checksum and
# its seal, which that version did not write.)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

# (320000 steps, about 1 s: the kill at 30 % must land inside the run on a loaded machine)
cat > chain.cfg <<'CFG'
study = invariants
model = nfold_pendulum
methods = rkmk4
steps = 320000
t_final = 4
sample_every = 50
[nfold_pendulum]
N = 16
initial = paper
CFG
"$LB" run chain.cfg -o ref.h5 -q "${PROGRESS[@]}" || bad "uninterrupted run failed"

# stopped CFG_LINES_TO_DROP...: a fresh checkpoint of old.h5 whose identity lacks the given keys
stopped() {
  rm -f old.h5 old.h5.ckpt.h5
  "$LB" run chain.cfg -o old.h5 "${PROGRESS[@]}" > run.log 2>&1 &
  local pid=$!
  wait_for_percent run.log $pid 30 && kill -TERM $pid
  wait $pid
  local st=$?
  [[ $st -eq 5 && -e old.h5.ckpt.h5 ]] || { bad "setup: exit $st, no checkpoint: $(tail -2 run.log)"; return 1; }
  /usr/bin/python3 - "$@" <<'PY'
import sys, h5py
# an earlier liebench wrote no seal (io/seal.hpp): its user block cut off, HDF5 finds the
# superblock at byte 0
data = open("old.h5.ckpt.h5", "rb").read()
assert data.startswith(b"liebench-seal/1 "), "the checkpoint is not sealed"
open("old.h5.ckpt.h5", "wb").write(data[512:])
with h5py.File("old.h5.ckpt.h5", "r+") as f:
    text = f.attrs["config"]
    text = text.decode() if isinstance(text, bytes) else text
    lines = [l for l in text.splitlines(keepends=True) if l.split(" = ")[0] not in sys.argv[1:]]
    assert len(lines) == len(text.splitlines()) - len(sys.argv[1:]), "a key to drop is not in the checkpoint"
    f.attrs["config"] = "".join(lines)
    # an earlier liebench wrote no checksum over the attributes (format 2)
    del f.attrs["attributes_checksum"]
    f.attrs["format"] = "liebench-checkpoint/2"
PY
}

if stopped convergence.fit_residual convergence.min_points; then
  expect_status "keys added since, at their defaults: continued" 0 "" "$LB" run chain.cfg -o old.h5 -q "${PROGRESS[@]}"
  same_result ref.h5 old.h5 && ok "continued bit for bit" || bad "continued run differs"
fi
if stopped convergence.min_points; then
  expect_status "a key added since with another value: refused" 2 "key 'convergence.min_points' is not in the checkpoint" \
    "$LB" run chain.cfg -o old.h5 -q "${PROGRESS[@]}" --convergence.min_points=4
  [[ -e old.h5.ckpt.h5 && ! -e old.h5 ]] && ok "refused checkpoint kept, nothing written" || bad "refusal changed files"
fi
if stopped steps; then
  expect_status "a key without a default value missing: refused" 2 "key 'steps' is not in the checkpoint" \
    "$LB" run chain.cfg -o old.h5 -q "${PROGRESS[@]}"
fi
finish
