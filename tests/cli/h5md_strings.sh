#!/usr/bin/env bash
# H5MD conformance of the result file's metadata (issue 12): string attributes are variable-length
# UTF-8 (h5py reads them as str, not bytes), the author comes from the key `author`, else
# $LIEBENCH_AUTHOR, else $USER, with an optional email. (`unit` and the units module's `system`
# are fixed-length ASCII as H5MD mandates: h5md_units.sh.)
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
PY=/usr/bin/python3
"$PY" -c "import h5py" 2>/dev/null || { echo "skipped: /usr/bin/python3 has no h5py"; exit 77; }

cat > ok.cfg <<'CFG'
study = invariants
model = free_rigid_body
methods = rkmk4
steps = 64
CFG
LIEBENCH_AUTHOR="Ada Lovelace" LIEBENCH_AUTHOR_EMAIL=ada@example.org "$LB" run ok.cfg -q -o env.h5 \
  || { bad "run with LIEBENCH_AUTHOR"; finish; }
LIEBENCH_AUTHOR="Ada Lovelace" "$LB" run ok.cfg -q -o key.h5 --author="Émilie du Châtelet" \
  || { bad "run with --author"; finish; }
env -u LIEBENCH_AUTHOR USER=someone "$LB" run ok.cfg -q -o user.h5 || { bad "run with USER"; finish; }

check() {  # file, expected name, expected email ('' = none)
  "$PY" - "$@" <<'PY'
import sys, h5py
path, name, email = sys.argv[1], sys.argv[2], sys.argv[3]
bad = []
with h5py.File(path, "r") as f:
    a = f["h5md/author"].attrs
    if a["name"] != name: bad.append(f"author name {a['name']!r}, expected {name!r}")
    if email and a.get("email") != email: bad.append(f"author email {a.get('email')!r}, expected {email!r}")
    if not email and "email" in a: bad.append("email written without one")
    def visit(obj_name, obj):
        for k, v in obj.attrs.items():
            if k in ("unit", "system"): continue  # H5MD units module: fixed-length ASCII (tests/cli/h5md_units.sh)
            if isinstance(v, bytes) or getattr(v, "dtype", None) is not None and v.dtype.kind == "S":
                bad.append(f"{obj_name}@{k} reads as bytes")
    visit("/", f)
    f.visititems(visit)
    for k in ("study", "liebench_format", "title"):
        if not isinstance(f.attrs[k], str): bad.append(f"/@{k} is {type(f.attrs[k]).__name__}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}
out=$(check env.h5 "Ada Lovelace" ada@example.org) && ok "author and email from the environment; every string attribute is str" \
  || bad "env.h5: $out"
out=$(check key.h5 "Émilie du Châtelet" "") && ok "key author wins over the environment (UTF-8 intact)" || bad "key.h5: $out"
out=$(check user.h5 someone "") && ok "\$USER when nothing else is set" || bad "user.h5: $out"
"$LB" report key.h5 > /dev/null && ok "report reads the new attributes" || bad "report"
finish
