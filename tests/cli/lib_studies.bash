# Helpers shared by the studies CLI tests (sourced; .bash so that CTest's tests/cli/*.sh glob
# does not take it for a test).
# Arguments of every test: LIEBENCH SOURCE_DIR SCRATCH_DIR.
set -u
LB="$(realpath "$1")"; SRC="$(realpath "$2")"; W="$3"
rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none)
EX="$SRC/studies/examples"
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
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
skip_attr = {"wall", "wall_max", "wall_min", "wall_mean", "created", "seconds"}
def timing(name): return "provenance" in name or "timings" in name or name.split("/")[-1].startswith("wall") or name.split("/")[-1].startswith("time.")
diffs = []
def items(f):
    out = {}
    def visit(name, obj):
        if timing(name): return
        out[name] = obj
    f.visititems(visit)
    out["/"] = f
    return out
ia, ib = items(a), items(b)
if set(ia) != set(ib): diffs.append("objects differ: %s" % sorted(set(ia) ^ set(ib)))
for k in sorted(set(ia) & set(ib)):
    x, y = ia[k], ib[k]
    for an in set(x.attrs) | set(y.attrs):
        if an in skip_attr or an.startswith("wall") or an.startswith("timing") or an.startswith("time."): continue
        if an not in x.attrs or an not in y.attrs: diffs.append("%s@%s missing" % (k, an)); continue
        va, vb = np.asarray(x.attrs[an]), np.asarray(y.attrs[an])
        if va.shape != vb.shape or va.tobytes() != vb.tobytes(): diffs.append("%s@%s: %r != %r" % (k, an, x.attrs[an], y.attrs[an]))
    if isinstance(x, h5py.Dataset):
        va, vb = x[()], y[()]
        if k.startswith("summary/wall") or k.startswith("summary/time"): continue
        if np.asarray(va).tobytes() != np.asarray(vb).tobytes(): diffs.append("%s: data differ" % k)
for d in diffs[:10]: print("   ", d)
sys.exit(1 if diffs else 0)
PY
}

finish() {
  if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
  echo "all passed"; exit 0
}
