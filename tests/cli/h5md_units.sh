#!/usr/bin/env bash
# H5MD units and particle groups (issue 12): with units = si ([L]'s examples) every dataset with a
# dimension carries `unit`, a scalar fixed-length ASCII string in H5MD's syntax ("kg m+2 s-1"); with
# the default units = dimensionless ([P], [K]) model quantities carry none (wall-clock timings stay
# in s); /h5md/modules/units names the system. Rigid bodies get particles/<group>/orientation (a
# rotation matrix, attribute `representation`) that is the body's real attitude: Q Gamma (heavy
# top) and Q m (free rigid body) are the conserved spatial vectors, Q is orthogonal.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
"$PY" -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 has no h5py"; exit 77; }

cat > pend.cfg <<'CFG'
study = invariants
model = nfold_pendulum
methods = rkmk4
steps = 200
t_final = 1
sample_every = 10
save_state = true
state_every = 20
[nfold_pendulum]
N = 2
CFG
"$LB" run pend.cfg -q -o si.h5 --units=si || { bad "run units = si"; finish; }
"$LB" run pend.cfg -q -o dimless.h5 || { bad "run with the default units"; finish; }

out=$("$PY" - si.h5 dimless.h5 <<'PY'
import sys, h5py
from h5py import h5t
bad = []
def unit(obj, path):
    """The unit attribute of obj[path] (None if absent), checked to be scalar fixed-length ASCII."""
    d = obj[path]
    if "unit" not in d.attrs: return None
    aid = d.attrs.get_id("unit")
    t = aid.get_type()
    if not isinstance(t, h5t.TypeStringID) or t.is_variable_str() or t.get_cset() != h5t.CSET_ASCII or aid.shape != ():
        bad.append(f"{path}@unit is not a scalar fixed-length ASCII string")
    v = d.attrs["unit"]
    return v.decode() if isinstance(v, bytes) else str(v)
def expect(f, path, want):
    got = unit(f, path)
    if got != want: bad.append(f"{f.filename}: {path}@unit = {got!r}, expected {want!r}")
with h5py.File(sys.argv[1], "r") as f:
    m = f["h5md/modules/units"]
    if m.attrs["system"] != b"SI": bad.append(f"units module system {m.attrs['system']!r}")
    if list(m.attrs["version"]) != [1, 0]: bad.append("units module version")
    r = "runs/run_00000/"
    for path, want in [
        ("observables/total_energy/value", "J"), ("observables/total_energy/time", "s"),
        ("observables/kinetic_energy/value", "J"), ("observables/angular_momentum_z/value", "kg m+2 s-1"),
        ("observables/unit_norm_error/value", None), ("observables/tangency_error/value", "rad s-1"),
        ("particles/pendulum/position/value", "m"), ("particles/pendulum/position/time", "s"),
        ("particles/pendulum/velocity/value", "m s-1"), ("particles/pendulum/angular_velocity/value", "rad s-1"),
        ("particles/pendulum/direction/value", None), ("particles/pendulum/position/step", None),
        (r + "timings/integrate", "s"), (r + "final_state", None),
        ("summary/h", "s"), ("summary/t_final", "s"), ("summary/steps", None), ("summary/rhs_evaluations", None),
        ("summary/total_energy.rel_error.max", None), ("summary/total_energy.rel_error.drift", "s-1"),
        ("summary/angular_momentum_z.abs_error.max", "kg m+2 s-1"),
        ("summary/angular_momentum_z.abs_error.drift", "kg m+2 s-2"),
        ("summary/unit_norm_error.max", None), ("summary/tangency_error.mean", "rad s-1")]:
        if path not in f: bad.append(f"si.h5 lacks {path}"); continue
        expect(f, path, want)
with h5py.File(sys.argv[2], "r") as f:
    if f["h5md/modules/units"].attrs["system"] != b"SI": bad.append("dimensionless file: units module system")
    if "dimensionless" not in f["h5md/modules/units"].attrs["model_quantities"]: bad.append("model_quantities")
    for path in ["observables/total_energy/value", "observables/total_energy/time", "particles/pendulum/position/value",
                 "particles/pendulum/position/time", "summary/h", "summary/angular_momentum_z.abs_error.max"]:
        expect(f, path, None)
    expect(f, "runs/run_00000/timings/integrate", "s")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
) && ok "units = si: H5MD unit strings on time, energies, momenta, positions, errors; dimensionless: none" || bad "$out"

# a model in reduced units cannot be written as SI: refused with the reason, no file left
cat > dip.cfg <<'CFG'
study = simulate
model = dipolar
methods = rkmk4
steps = 20
t_final = 0.2
save_state = true
state_every = 5
[dipolar]
N = 3
CFG
expect_status "units = si refused for the dipolar model's reduced units" 2 "sigma" "$LB" run dip.cfg -q -o dsi.h5 --units=si
[[ ! -e dsi.h5 ]] && ok "no file written by the refused run" || bad "dsi.h5 exists"

cat > top.cfg <<'CFG'
study = invariants
model = heavy_top
methods = rkmk4
steps = 100
t_final = 0.5
sample_every = 10
save_state = true
state_every = 10
CFG
cat > frb.cfg <<'CFG'
study = simulate
model = free_rigid_body
methods = rkmk4
steps = 100
t_final = 2
save_state = true
state_every = 10
[free_rigid_body]
attitude = true
CFG
"$LB" run dip.cfg -q -o dip.h5 && "$LB" run top.cfg -q -o top.h5 && "$LB" run frb.cfg -q -o frb.h5 \
  || { bad "rigid-body runs"; finish; }
out=$("$PY" - dip.h5 top.h5 frb.h5 <<'PY'
import sys, h5py, numpy as np
bad = []
def element(f, path, frames, rows, dim):
    g = f[path]
    for k in ("value", "step", "time"):
        if k not in g: bad.append(f"{f.filename}: {path}/{k} missing"); return None
    v = g["value"][...]
    if v.shape != (frames, rows, dim): bad.append(f"{f.filename}: {path}/value shape {v.shape}, expected {(frames, rows, dim)}")
    if g["step"].shape != (frames,) or g["time"].shape != (frames,): bad.append(f"{f.filename}: {path} step/time shapes")
    return v
def rotations(f, path, frames, rows):
    v = element(f, path + "/orientation", frames, rows, 9)
    if v is None: return None
    rep = f[path + "/orientation/value"].attrs.get("representation", "")
    if not rep.startswith("rotation_matrix"): bad.append(f"{f.filename}: orientation representation {rep!r}")
    Q = v.reshape(frames, rows, 3, 3)
    dev = np.abs(Q @ np.swapaxes(Q, -1, -2) - np.eye(3)).max()
    if dev > 1e-10: bad.append(f"{f.filename}: orientation not orthogonal ({dev:.2e})")
    if np.abs(np.linalg.det(Q) - 1).max() > 1e-10: bad.append(f"{f.filename}: det Q != 1")
    return Q
with h5py.File(sys.argv[1], "r") as f:  # dipolar: 20 steps, every 5th + t0 = 5 frames, 3 bodies
    element(f, "particles/bodies/position", 5, 3, 3)
    rotations(f, "particles/bodies", 5, 3)
    if "observables/total_energy/value" not in f: bad.append("dip.h5: no /observables")
with h5py.File(sys.argv[2], "r") as f:  # heavy top: Q Gamma = Gamma0 for every frame
    if "particles" not in f or "observables" not in f: bad.append("top.h5: no root /particles or /observables")
    Q = rotations(f, "particles/top", 11, 1)
    G = element(f, "particles/top/body_gravity", 11, 1, 3)
    if Q is not None and G is not None:
        spatial = np.einsum("fij,fj->fi", Q[:, 0], G[:, 0])
        dev = np.abs(spatial - spatial[0]).max()
        if dev > 1e-9: bad.append(f"top.h5: Q Gamma not constant ({dev:.2e}): orientation is not the attitude")
    if f["particles/top/position"].id != f["particles/top/centre_of_mass"].id:
        bad.append("top.h5: position is not the centre_of_mass element")
with h5py.File(sys.argv[3], "r") as f:  # free rigid body with attitude: spatial momentum Q m conserved
    Q = rotations(f, "particles/free_rigid_body", 11, 1) if "particles/free_rigid_body" in f else None
    if Q is None:
        bad.append(f"frb.h5: particle groups {list(f['particles'])}")
    else:
        m = f["particles/free_rigid_body/state/value"][:, 0, 0:3]
        L = np.einsum("fij,fj->fi", Q[:, 0], m)
        dev = np.abs(L - L[0]).max() / np.abs(L[0]).max()
        if dev > 1e-6: bad.append(f"frb.h5: Q m not conserved ({dev:.2e})")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
) && ok "particles/<group>/{position, orientation}/{value, step, time}: shapes, rotation matrices, the real attitude" \
  || bad "$out"
# the derived orientation does not depend on the ranks (2 ranks: the same bits)
"${MPIRUN[@]}" -n 2 "$LB" run top.cfg -q -o top2.h5 && "${MPIRUN[@]}" -n 2 "$LB" run frb.cfg -q -o frb2.h5 \
  || { bad "2-rank runs"; finish; }
out=$("$PY" - <<'PY'
import h5py, numpy as np
bad = []
for a, b, g in (("top.h5", "top2.h5", "top"), ("frb.h5", "frb2.h5", "free_rigid_body")):
    with h5py.File(a, "r") as A, h5py.File(b, "r") as B:
        for k in sorted(A["particles/" + g]):
            if k == "box": continue
            if not np.array_equal(A[f"particles/{g}/{k}/value"][()], B[f"particles/{g}/{k}/value"][()]):
                bad.append(f"{b}: particles/{g}/{k} differs from the 1-rank run")
print("\n".join(bad))
PY
)
[[ -z "$out" ]] && ok "particles (orientation included) bitwise equal on 1 and 2 ranks" || bad "$out"
finish
