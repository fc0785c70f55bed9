#!/usr/bin/env bash
# The bench command of issue 16 (scripts/bench/all.sh) in its quick mode (small sizes, 1 repeat,
# no peers): it writes performance.md and performance.h5 with one row for every target of the
# issue (the same rows in both), and the independent cross-checks it prints hold:
#  - the hand-written Eigen RKMK4 loop (tests/benchmarks/baseline_eigen_rkmk4.cpp) ends 200 steps
#    within 1e-12 of the suite's rkmk4 with the same truncated dexpinv (N = 2 and 20);
#  - the flat-coordinate O(N) right-hand side of the Odeint baseline equals the suite's
#    angular accelerations to 1e-13 relative;
#  - every group kernel agrees with Eigen's matrix functions / the Bernoulli series to 1e-12
#    relative on random inputs, near 0 and near pi (log: the suite's log(exp(x)) returns x to
#    1e-14; Eigen's matrix logarithm is allowed its own error, it is only the baseline);
#  - with LAMMPS installed, the [K] 3.2.2 state has the same initial energy in the suite, LAMMPS and
#    an independent Python pair sum to 1e-13 relative (scripts/bench/thesis_workload.sh).
# Bad input exits 2 with one line and leaves an earlier table untouched.
# No timing is asserted.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
BUILD="$(dirname "$LB")"
PY=/usr/bin/python3

expect_status "bad --repeat" 2 "--repeat=0; give a positive integer" bash "$SRC/scripts/bench/all.sh" --quick --build "$BUILD" --out "$W/out" --repeat 0
[ ! -e "$W/out" ] && ok "bad input writes nothing" || bad "bad input created $W/out"

if bash "$SRC/scripts/bench/all.sh" --quick --build "$BUILD" --out "$W/out" > quick.log 2>&1; then
  ok "all.sh --quick"
else
  bad "all.sh --quick failed:"; tail -20 quick.log
fi
for f in performance.md performance.h5 raw.txt; do
  [ -s "out/$f" ] && ok "wrote $f" || bad "missing out/$f"
done

# Every target of issue 16 has its row (ids as written by scripts/bench/report.py).
"$PY" - "$W/out" <<'EOF' && ok "every target has its row in the table and the HDF5 file; cross-checks hold" || bad "rows or cross-checks"
import sys, h5py
out = sys.argv[1]
md = open(f"{out}/performance.md").read()
with h5py.File(f"{out}/performance.h5") as f:
    ids = [x.decode() for x in f["table/id"][()]]
    targets = [x.decode() for x in f["table/target"][()]]
    met = [x.decode() for x in f["table/met"][()]]
    machine = dict(f["machine"].attrs)
    s = f["samples"]
    eigen = [float(v) for N in (2, 20) for v in s[f"small_eigen_N{N}/max_diff_vs_suite_rkmk4_dexpinv2"][()]]
    flat = [float(v) for N in (2, 20) for v in s[f"small_odeint_N{N}/rhs_vs_suite"][()]]
    g = s["groups"]
    prog = [x.decode() for x in g["program"][()]]
    ops = [x.decode() for x in g["op"][()]]
    diffs = [(ops[i], max(g[k][i] for k in ("maxreldiff_random", "maxreldiff_near0", "maxreldiff_nearpi")))
             for i in range(len(prog)) if prog[i] == "bench_groups"]
    peak = [float(v) for v in s["fma_peak/fma_peak_gflops"][()]] if "fma_peak" in s else []
    per_cycle = [float(v) for v in s["fma_peak/flops_per_cycle"][()]] if "fma_peak" in s else []
    mix = [float(v) for v in s["fma_peak/pair_mix_cycles_per_4_pairs"][()]] if "fma_peak" in s else []
    logerr = [g["suite_maxrelerr_vs_input"][i] for i in range(len(prog)) if prog[i] == "bench_groups_log_accuracy"]
    # with LAMMPS installed: the same initial state in both programs (scripts/bench/thesis_workload.sh)
    h0 = list(s["thesis/H0_reldiff_suite_lammps"][()]) + list(s["thesis/H0_reldiff_suite_python"][()]) if "thesis" in s else []
errors = []
need = ["pairs_N200", "chain_rhs_ns_per_link", "chain_rhs_N100_vs_flat", "chain_step_N1000000", "chain_growth",
        "chain_memory", "chain_1e8", "thesis_np1", "thesis_np2", "cutoff_rate_vs_allpairs"]
need += [f"small_N{N}_{c}" for N in (2, 20) for c in ("lie_euler_vs_odeint", "rkmk4_vs_eigen", "rkmk4_vs_odeint")]
need += [f"groups_{G}_{op}" for G in ("SO3", "SE3") for op in ("exp", "log", "dexpinv", "action_TS2")]
for rid in need:
    if rid not in ids:
        errors.append(f"row {rid} missing from performance.h5")
for t in targets:
    if f"| {t} |" not in md:
        errors.append(f"row '{t}' missing from performance.md")
for k in ("cpu_model", "cores", "flags", "load_before", "load_after"):
    if k not in machine:
        errors.append(f"machine attribute {k} missing")
if any(m not in ("yes", "no", "not measured") for m in met):
    errors.append(f"met column {met}")
if len(eigen) != 2 or max(eigen) > 1e-12:
    errors.append(f"Eigen RKMK4 vs suite: {eigen}")
if len(flat) != 2 or max(flat) > 1e-13:
    errors.append(f"flat rhs vs suite: {flat}")
if len(diffs) != 8:
    errors.append(f"{len(diffs)} group kernels")
for op, d in diffs:
    if op != "log" and d > 1e-12:
        errors.append(f"group kernel {op}: {d}")
if len(logerr) != 2 or max(logerr) > 1e-14:
    errors.append(f"log(exp(x)) - x: {logerr}")
if h0 and max(h0) > 1e-13:
    errors.append(f"initial energies of the thesis state: {h0}")
# the measured clock and FMA peak (bench_fma_peak), twice: 4 ... 64 flops per cycle on any x86-64
# core with AVX2 + FMA (16 with two 256-bit FMA pipes)
if len(peak) != 2 or min(peak) <= 0 or not all(4 <= c <= 64 for c in per_cycle):
    errors.append(f"FMA peak samples {peak}, flops per cycle {per_cycle}")
# the pair kernel's instruction mix: its 51 multiplies and FMAs on 256-bit registers cannot take
# fewer cycles than the FMA pipes allow (per_cycle / 8 of them per cycle), nor hundreds. The pipes'
# capacity is the better of the two samples: a sample taken while another process held the core
# reads low (11.3 flops per cycle beside 15.9 in one run), and the bound from it would be too tight.
if len(mix) != 2 or not all(0.9 * 51 * 8 / max(per_cycle) <= m <= 400 for m in mix):
    errors.append(f"pair mix cycles per 4 pairs {mix} (flops per cycle {per_cycle})")
for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF

# The baselines refuse bad input with one line and exit 2.
expect_status "odeint baseline: bad N" 2 "--N=abc" "${MPIRUN[@]}" -n 1 "$BUILD/tests/baseline_odeint_pendulum" --N=abc
expect_status "Eigen RKMK4 baseline: uncompiled N" 2 "N = 2 and N = 20" "${MPIRUN[@]}" -n 1 "$BUILD/tests/baseline_eigen_rkmk4" --N=3
expect_status "bench_groups: bad rounds" 2 "rounds >= 1" "${MPIRUN[@]}" -n 1 "$BUILD/tests/bench_groups" --rounds=0

# An earlier table stays untouched by a failing call.
cp out/performance.md before.md
expect_status "unknown option" 2 "unknown argument" bash "$SRC/scripts/bench/all.sh" --quick --bogus --out "$W/out"
cmp -s before.md out/performance.md && ok "earlier table untouched" || bad "earlier table changed"
finish
