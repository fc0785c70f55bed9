#!/usr/bin/env bash
# A full file system during the write of a 1- and a 2-rank run (issue 14, "No data lost on
# error paths"): a small tmpfs made by the test (skipped, status 77, where it cannot be
# mounted) is filled to several levels, then a simulate run (states written collectively every
# few steps) replaces an earlier result there with --force. Every attempt must end within the
# timeout either in success or with exit status 4 and one `I/O error` line; never a hang, a
# crash (status >= 128) or a temporary file; the earlier result stays intact.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"

FS="$W/fs"
mkdir -p "$FS"
if ! mount -t tmpfs -o size=2m liebench_full_disk_test "$FS" 2>/dev/null; then
  echo "skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"; exit 77
fi
trap 'cd /; umount "$FS" 2>/dev/null' EXIT

cat > sim.cfg <<'CFG'
study = simulate
model = nfold_pendulum
methods = rkmk4
steps = 400
t_final = 1
sample_every = 1
save_state = true
state_every = 4
[nfold_pendulum]
N = 64
CFG

"$LB" run sim.cfg -q -o "$FS/res.h5" || { bad "the earlier result could not be written"; finish; }
cp "$FS/res.h5" earlier.h5
size=$(stat -c %s "$FS/res.h5")
echo "result file: $size bytes on a 2 MiB tmpfs"

failed_seen=0
for ranks in 1 2; do
  for free_kb in 0 8 64 $((size / 1024 / 2)) $((size / 1024 - 16)); do
    rm -f "$FS/filler"
    avail=$(df -k --output=avail "$FS" | tail -1)
    fill=$((avail - free_kb))
    (( fill > 0 )) && dd if=/dev/zero of="$FS/filler" bs=1k count=$fill status=none 2>/dev/null
    name="$ranks rank(s), $free_kb KiB free"
    if [[ $ranks -eq 1 ]]; then cmd=("$LB" run sim.cfg -q --force -o "$FS/res.h5")
    else cmd=("${MPIRUN[@]}" -n 2 "$LB" run sim.cfg -q --force -o "$FS/res.h5"); fi
    out=$(timeout 120 "${cmd[@]}" 2>&1); st=$?
    if [[ $st -eq 124 ]]; then bad "$name: hung (killed after 120 s)"
    elif [[ $st -ge 128 ]]; then bad "$name: crashed (status $st): $out"
    elif [[ $st -eq 0 ]]; then
      # it fitted: the new file is complete and readable
      "$LB" report "$FS/res.h5" >/dev/null 2>&1 && ok "$name: fitted, complete file" || bad "$name: exit 0, unreadable file"
      cp "$FS/res.h5" earlier.h5
    elif [[ $st -eq 4 ]]; then
      failed_seen=$((failed_seen + 1))
      # liebench's own lines (mpirun adds its note about the non-zero status; Open MPI's OMPIO
      # may print "mca_fbtl_posix_pwritev: error in writev" itself)
      lb=$(grep '^liebench' <<<"$out")
      if [[ $(wc -l <<<"$lb") -eq 1 && "$lb" == *"I/O error"* && "$out" != *"HDF5-DIAG"* && "$out" != *"Signal:"* ]]; then
        ok "$name: exit 4, one clear line ($lb)"
      else
        bad "$name: exit 4 but not one clear line: $out"
      fi
      cmp -s "$FS/res.h5" earlier.h5 && ok "$name: the earlier result is intact" || bad "$name: earlier result changed"
    else
      bad "$name: exit status $st (expected 0 or 4 with one 'I/O error' line): $out"
    fi
    left=$(ls "$FS" | grep -v -x -e res.h5 -e res.h5.log -e filler)  # res.h5.log: the run log (README)
    [[ -z "$left" ]] && ok "$name: no temporary file" || bad "$name: left $left"
  done
done
rm -f "$FS/filler"
(( failed_seen >= 2 )) && ok "the full disk was hit ($failed_seen runs)" || bad "the disk never filled ($failed_seen failures)"
finish
