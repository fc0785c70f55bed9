#!/usr/bin/env bash
# Damaged checkpoints are told as damage (issue 29): one byte of a checkpoint (a convergence
# study stopped by SIGTERM: finished runs, the run in progress, a reference) flipped, at the
# model's name and at evenly spaced offsets over the whole file. The restart is refused with
# one line "corrupt checkpoint ... remove it to start over" and exit 2, or the flip hit bytes
# nothing reads (HDF5 padding, free space) and the restart finishes bitwise equal to an
# uninterrupted run; never "belongs to another run/experiment" (what a flipped byte in the
# model's name was called before), a crash or a hang. Since checkpoints are sealed (a hash of
# every byte, io/seal.hpp) every flip is refused. Checkpoints of the previous formats (without
# the seal; without the attributes' checksum too) still continue.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/lib_studies.bash"
source "$HERE/lib_checkpoint.bash"

cat > conv.cfg <<'CFG'
study = convergence
model = nfold_pendulum
methods = rkmk4
steps = 32000, 64000
t_final = 4
reference.method = rkmk5
reference.steps = 128000
[nfold_pendulum]
N = 24
initial = paper
CFG
# (steps: the run must last long enough for SIGTERM to land at 40 %; with 4000, 8000 and 16000
# the chain's vector-lane stages made it a 0.4 s run, which a loaded machine could finish between
# two polls; 4x again after the small-system path. N stays 24: the flipped offsets below are the layout of this checkpoint.)
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
# the seal covers every byte: each flip is refused before HDF5 reads the file (a flipped
# global-heap reference used to segfault HDF5 1.10 in H5HG_read)
[[ $accepted -eq 0 ]] && ok "every flip refused (the seal)" || bad "$accepted flips were not refused"
# one byte appended or cut off: refused
cp good.ckpt f.ckpt; printf 'x' >> f.ckpt
accepted=0 refused=0
if restart "one byte appended" && [[ $refused -eq 1 ]]; then ok "one byte appended: corrupt"; else bad "one byte appended: accepted $accepted, refused $refused"; fi
head -c $((size - 1)) good.ckpt > f.ckpt
accepted=0 refused=0
if restart "one byte cut off" && [[ $refused -eq 1 ]]; then ok "one byte cut off: corrupt"; else bad "one byte cut off: accepted $accepted, refused $refused"; fi
# unseal FORMAT [DROP_SUM]: good.ckpt without its seal (the user block cut off: HDF5 finds the
# superblock at byte 0), its format attribute FORMAT, without attributes_checksum if DROP_SUM
unseal() {
  /usr/bin/python3 - "$@" <<'PY'
import sys, h5py, numpy as np
M = (1 << 64) - 1
def fnv(data, h=1469598103934665603):
    for x in data:
        h = ((h ^ x) * 1099511628211) & M
    return h
def entry(obj, name, value):  # AttrSum::add in src/studies/checkpoint.cpp
    return fnv(value.encode(), fnv(name.encode(), fnv(obj.encode() + b"\0")))
open("f.ckpt", "wb").write(open("good.ckpt", "rb").read()[512:])
with h5py.File("f.ckpt", "r+") as f:
    old = f.attrs["format"]
    old = old.decode() if isinstance(old, bytes) else old
    f.attrs["format"] = sys.argv[1]
    if len(sys.argv) > 2:
        del f.attrs["attributes_checksum"]
    else:  # the checksum over the attributes, with the format changed
        s = (int(f.attrs["attributes_checksum"]) - entry("/", "format", old) + entry("/", "format", sys.argv[1])) & M
        f.attrs["attributes_checksum"] = np.int64(s - (1 << 64) if s >> 63 else s)
PY
}
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  # checkpoints of the previous formats (no seal; no attributes' checksum either) still continue
  unseal liebench-checkpoint/3
  accepted=0 refused=0
  if restart "format 3" && [[ $accepted -eq 1 ]]; then ok "a checkpoint of format 3 (no seal) continues to the same bits"; else bad "format 3: accepted $accepted, refused $refused"; fi
  unseal liebench-checkpoint/2 drop
  accepted=0 refused=0
  if restart "format 2" && [[ $accepted -eq 1 ]]; then ok "a checkpoint of format 2 (no attributes' checksum) continues to the same bits"; else bad "format 2: accepted $accepted, refused $refused"; fi
  unseal liebench-checkpoint/3 drop
  accepted=0 refused=0
  if restart "format 3 without attributes_checksum" && [[ $refused -eq 1 ]]; then ok "format 3 without its attributes' checksum: corrupt"; else bad "format 3 without attributes_checksum: accepted $accepted, refused $refused"; fi
  unseal liebench-checkpoint/4
  accepted=0 refused=0
  if restart "format 4 without its seal" && [[ $refused -eq 1 ]]; then ok "this format without its seal: corrupt"; else bad "format 4 without its seal: accepted $accepted, refused $refused"; fi
fi
[[ "$(md5sum < good.ckpt)" == "$(md5sum < c.h5.ckpt.h5)" ]] || bad "the original checkpoint changed"
expect_status "the intact checkpoint continues" 0 "" "$LB" run conv.cfg -o c.h5 -q "${PROGRESS[@]}"
same_result ref.h5 c.h5 && ok "continued: same bits" || bad "c.h5 differs from the uninterrupted run"
finish
