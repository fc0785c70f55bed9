#!/usr/bin/env bash
# Damaged checkpoints are told as damage (issue 29): one byte of a checkpoint (a convergence
# study stopped by SIGTERM: finished runs, the run in progress, a reference) flipped, at the
# model's name and at evenly spaced offsets over the whole file. The restart is refused with
# one line "corrupt checkpoint ... remove it to start over" and exit 2, or the flip hit bytes
# nothing reads (HDF5 padding, free space) and the restart finishes bitwise equal to an
# uninterrupted run; never "belongs to another run/experiment" (what a flipped byte in the
# model's name was called before), a crash or a hang. A checkpoint of the previous format
# (without the attributes' checksum) still continues.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

cat > conv.cfg <<'CFG'
study = convergence
model = nfold_pendulum
methods = rkmk4
steps = 8000, 16000
t_final = 4
reference.method = rkmk5
reference.steps = 32000
[nfold_pendulum]
N = 24
initial = paper
CFG
# (steps: the run must last long enough for SIGTERM to land at 40 %; with 4000, 8000 and 16000
# the chain's vector-lane stages made it a 0.4 s run, which a loaded machine could finish between
# two polls. N stays 24: the flipped offsets below are the layout of this checkpoint.)
"$LB" run conv.cfg -o ref.h5 -q "${PROGRESS[@]}" || { bad "uninterrupted run failed"; finish; }
for attempt in 1 2 3; do
  "$LB" run conv.cfg -o c.h5 "${PROGRESS[@]}" > run.log 2>&1 &
  pid=$!
  wait_for_percent run.log $pid 40 && kill -TERM $pid
  wait $pid; st=$?
  [[ $st -eq 5 ]] && break
  rm -f c.h5 c.h5.ckpt.h5
done
[[ $st -eq 5 && -e c.h5.ckpt.h5 ]] || { bad "no checkpoint to damage (exit $st): $(tail -2 run.log)"; finish; }
cp c.h5.ckpt.h5 good.ckpt
size=$(stat -c %s good.ckpt)

# flip OFFSET: good.ckpt with byte OFFSET inverted, as f.ckpt
flip() {
  /usr/bin/python3 - "$1" <<'PY'
import sys
b = bytearray(open("good.ckpt", "rb").read()); b[int(sys.argv[1])] ^= 0xFF
open("f.ckpt", "wb").write(bytes(b))
PY
}
# restart NAME: from f.ckpt; refused as corrupt, or finished with the uninterrupted result
accepted=0 refused=0
restart() {
  local out st
  rm -f r.h5 r.h5.ckpt.h5
  out=$(timeout 120 "$LB" run conv.cfg -o r.h5 -q "${PROGRESS[@]}" --restart f.ckpt 2>&1); st=$?
  if [[ $st -eq 2 ]]; then
    if [[ "$out" == "liebench: error: corrupt checkpoint f.ckpt is refused: "*"; remove it to start over" &&
          $(wc -l <<<"$out") -eq 1 ]]; then refused=$((refused + 1)); return 0; fi
    bad "$1: refused, but not as a corrupt checkpoint: $out"; return 1
  elif [[ $st -eq 0 ]] && same_result ref.h5 r.h5 >/dev/null; then
    accepted=$((accepted + 1)); return 0
  fi
  bad "$1: exit $st: ${out:0:400}"; return 1
}

# the model's name: the variable-length string "nfold_pendulum" (8-byte length, then the text)
# in the global heap; the first byte of the text flipped. Before checksummed attributes this
# read as "it belongs to another run: model '\x91fold_pendulum'".
off=$(/usr/bin/python3 -c '
import struct
b = open("good.ckpt", "rb").read()
print(b.find(struct.pack("<Q", 14) + b"nfold_pendulum") + 8)')
if [[ $off -ge 8 ]]; then
  flip "$off"
  restart "model name flipped" && [[ $refused -eq 1 ]] && ok "a flipped byte in the model's name: corrupt" \
    || bad "a flipped byte in the model's name was accepted"
else
  bad "the model's name is not in the checkpoint as expected (the test needs updating)"
fi

# every byte of the superblock's first 64, then 40 offsets over the whole file
offsets="$(seq 0 7 63) $(seq 64 $(( (size - 64) / 40 + 1 )) $((size - 1)))"
n=0 before=$failures accepted=0 refused=0
for o in $offsets; do
  flip "$o"
  restart "byte $o of $size" || true
  n=$((n + 1))
done
[[ $failures -eq $before ]] && ok "$n single-byte flips: $refused refused as corrupt, $accepted continued to the same bits"
# a checkpoint of the previous format (no attributes_checksum) still continues
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  cp good.ckpt f.ckpt
  /usr/bin/python3 - <<'PY'
import h5py, numpy as np
with h5py.File("f.ckpt", "r+") as f:
    del f.attrs["attributes_checksum"]
    f.attrs["format"] = "liebench-checkpoint/2"
PY
  accepted=0 refused=0
  restart "previous format" && [[ $accepted -eq 1 ]] && ok "a checkpoint of the previous format continues to the same bits"
  cp good.ckpt f.ckpt
  /usr/bin/python3 -c 'import h5py; f = h5py.File("f.ckpt", "r+"); del f.attrs["attributes_checksum"]'
  accepted=0 refused=0
  restart "no attributes_checksum" && [[ $refused -eq 1 ]] && ok "this format without its attributes' checksum: corrupt"
fi
[[ "$(md5sum < good.ckpt)" == "$(md5sum < c.h5.ckpt.h5)" ]] || bad "the original checkpoint changed"
expect_status "the intact checkpoint continues" 0 "" "$LB" run conv.cfg -o c.h5 -q "${PROGRESS[@]}"
same_result ref.h5 c.h5 && ok "continued: same bits" || bad "c.h5 differs from the uninterrupted run"
finish
