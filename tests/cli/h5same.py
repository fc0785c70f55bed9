#!/usr/bin/python3
"""h5same.py A.h5 B.h5 [--ignore-key KEY ...]: exit 0 when the two result files hold the same
bits in every dataset and attribute, except what legitimately differs between two runs of one
study: /provenance (hosts, times), timings and wall-clock numbers (objects and attributes named
wall*, time.*, timing*, created, seconds). --ignore-key KEY also drops the attribute KEY and the
lines naming KEY in configuration texts (e.g. log_every). Differences go to stdout (first 10).
Strings compare as text (variable-length string attributes read as str / object arrays), numbers
by their bytes (so -0.0 != 0.0 and NaN payloads count)."""
import sys

import h5py
import numpy as np

SKIP_ATTRS = {"wall", "wall_max", "wall_min", "wall_mean", "created", "seconds"}


def skipped_object(name):
    last = name.split("/")[-1]
    return "provenance" in name or "timings" in name or last.startswith("wall") or last.startswith("time.")


def skipped_attr(name, ignore):
    return name in SKIP_ATTRS or name in ignore or name.startswith(("wall", "timing", "time."))


def canonical(v, ignore):
    """Bytes that are equal iff the values are the same bits (strings as UTF-8 text)."""
    def text(s):
        if isinstance(s, bytes):
            s = s.decode("utf-8", "surrogateescape")
        return "\n".join(l for l in s.split("\n") if not any(k in l for k in ignore))
    if isinstance(v, (str, bytes)):
        return b"s" + text(v).encode("utf-8", "surrogateescape")
    a = np.asarray(v)
    if a.dtype.kind in "OSU":
        return b"a" + repr(a.shape).encode() + b"\0".join(
            text(x if isinstance(x, (str, bytes)) else str(x)).encode("utf-8", "surrogateescape") for x in a.ravel())
    return a.dtype.str.encode() + repr(a.shape).encode() + a.tobytes()


def objects(f):
    out = {"/": f}
    f.visititems(lambda n, o: None if skipped_object(n) else out.__setitem__(n, o))
    return out


def main():
    args = sys.argv[1:]
    ignore = [args[i + 1] for i, a in enumerate(args) if a == "--ignore-key"]
    files = [a for i, a in enumerate(args) if a != "--ignore-key" and (i == 0 or args[i - 1] != "--ignore-key")]
    if len(files) != 2:
        sys.exit("usage: h5same.py A.h5 B.h5 [--ignore-key KEY ...]")
    with h5py.File(files[0], "r") as a, h5py.File(files[1], "r") as b:
        ia, ib = objects(a), objects(b)
        diffs = ["objects differ: %s" % sorted(set(ia) ^ set(ib))] if set(ia) != set(ib) else []
        for k in sorted(set(ia) & set(ib)):
            x, y = ia[k], ib[k]
            for an in sorted(set(x.attrs) | set(y.attrs)):
                if skipped_attr(an, ignore):
                    continue
                if an not in x.attrs or an not in y.attrs:
                    diffs.append("%s@%s missing" % (k, an))
                elif canonical(x.attrs[an], ignore) != canonical(y.attrs[an], ignore):
                    diffs.append("%s@%s: %r != %r" % (k, an, x.attrs[an], y.attrs[an]))
            if isinstance(x, h5py.Dataset) and canonical(x[()], ignore) != canonical(y[()], ignore):
                diffs.append("%s: data differ" % k)
    for d in diffs[:10]:
        print("   ", str(d)[:300])
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
