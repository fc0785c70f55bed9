#!/usr/bin/env bash
# The installable library (issue 13):
#  - `cmake --install` puts the program, libliebench, the headers, the CMake package, the
#    experiments, the plotting and SLURM scripts and the example plugin under a prefix, and the
#    installed program runs from there;
#  - examples/plugin (a model and a method outside the source tree) builds against the installed
#    package with find_package(LieBench), as a run-time plugin and as the user's own executable;
#    a convergence study of the plugin's model with the plugin's method shows its order 3 (and
#    rkmk4 order 4), and both ways (and 1 or 2 ranks) give the same bits;
#  - a consumer with project(... LANGUAGES CXX) alone builds against the installed package and
#    runs (no C compiler needed by the package config), and the example enables C++ alone;
#  - a bad or duplicate plugin is refused with one line and exit 2;
#  - the project configures without GTest and Google Benchmark when tests and benchmarks are off,
#    and as a subdirectory of another project (add_subdirectory);
#  - `cpack -G DEB` makes a package with the files and the declared dependencies.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
BUILD="$(dirname "$LB")"
P="$W/prefix"
export CCACHE_DISABLE=1

if cmake --install "$BUILD" --prefix "$P" >install.log 2>&1; then ok "cmake --install"
else bad "cmake --install failed: $(tail -n 5 install.log)"; finish; fi
for f in bin/liebench lib/libliebench.so include/liebench/methods/stepper.hpp include/liebench/app/liebench_main.hpp \
         lib/cmake/LieBench/LieBenchConfig.cmake lib/cmake/LieBench/LieBenchConfigVersion.cmake \
         lib/cmake/LieBench/LieBenchTargets.cmake share/liebench/experiments/P_fig5_double_pendulum_convergence.cfg \
         share/liebench/experiments/README.md share/liebench/experiments/examples/frb_adaptive.cfg \
         share/liebench/experiments/scaling/chain_weak.cfg include/liebench/report/tables.hpp \
         share/liebench/scripts/plots/plot_study.py share/liebench/slurm/submit.sh \
         share/liebench/examples/plugin/CMakeLists.txt share/doc/liebench/LICENSE share/doc/liebench/CITATION.cff; do
  [[ -e "$P/$f" ]] || bad "not installed: $f"
done
expect_status "installed program runs (rpath to its library)" 0 "liebench" env -u LD_LIBRARY_PATH "$P/bin/liebench" --version
for py in plot_study.py source_figures.py; do  # the installed scripts find their modules (lbcommon, workprecision)
  expect_status "installed $py imports" 0 "usage" /usr/bin/python3 "$P/share/liebench/scripts/plots/$py" --help
done

# The example, copied out of the installed share/ as a user would.
cp -r "$P/share/liebench/examples/plugin" "$W/plugin"
if cmake -S "$W/plugin" -B "$W/plugin/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >cfg.log 2>&1 &&
   cmake --build "$W/plugin/build" -j 2 >build.log 2>&1; then ok "examples/plugin builds against the installed package"
else bad "examples/plugin build: $(tail -n 20 cfg.log build.log 2>&1)"; finish; fi
PLUGIN="$W/plugin/build/liebench_example_plugin.so"
MINE="$W/plugin/build/my_liebench"

expect_status "list with --plugin shows the plugin's method" 0 "rkmk_ralston3" "$P/bin/liebench" list methods --plugin="$PLUGIN"
expect_status "list with LIEBENCH_PLUGINS shows the plugin's model" 0 "neumann" env LIEBENCH_PLUGINS="$PLUGIN" "$P/bin/liebench" list models
expect_status "own executable lists the linked-in model" 0 "neumann" "$MINE" list models
expect_status "missing plugin: one line, exit 2" 2 "plugin '$W/nope.so' could not be loaded" "$P/bin/liebench" list --plugin="$W/nope.so"
expect_status "duplicate registration refused" 2 "'neumann' is registered twice" "$MINE" list --plugin="$PLUGIN"

check_orders() {  # FILE.h5: rkmk_ralston3 order 3, rkmk4 order 4, within 0.2
  /usr/bin/python3 - "$1" <<'PY'
import sys, h5py
a = h5py.File(sys.argv[1], "r")["analysis/convergence"]
want = {"rkmk_ralston3": 3, "rkmk4": 4}
seen = {}
for m, p, o in zip(a["method"][()], a["nominal_order"][()], a["observed_order"][()]):
    seen[m.decode()] = (p, o)
    print(f"   {m.decode():14s} nominal {p} observed {o:.3f}")
sys.exit(0 if set(seen) == set(want) and all(seen[m][0] == want[m] and abs(seen[m][1] - want[m]) <= 0.2 for m in want) else 1)
PY
}
CFG="$W/plugin/neumann_convergence.cfg"  # names the plugin with the key `plugin` (relative path)
if "$P/bin/liebench" run "$CFG" -o plugin.h5 --quiet >run1.log 2>&1 && check_orders plugin.h5; then
  ok "plugin (key in the experiment file): observed orders 3 and 4"
else bad "plugin convergence: $(cat run1.log)"; fi
if "${MPIRUN[@]}" -n 2 "$MINE" run "$CFG" --plugin= -o mine.h5 --quiet >run2.log 2>&1 && check_orders mine.h5; then
  ok "own executable on 2 ranks: observed orders 3 and 4"
else bad "own executable convergence: $(cat run2.log)"; fi
if [[ -f plugin.h5 && -f mine.h5 ]] &&
   cmp -s <(h5dump -d /summary/error plugin.h5 | tail -n +2) <(h5dump -d /summary/error mine.h5 | tail -n +2); then
  ok "plugin on 1 rank and own executable on 2 ranks: bitwise the same errors"
else bad "errors differ between the plugin run and the own-executable run"; fi

# A step-size controller from the plugin, selected by name like a built-in one (issue 24).
expect_status "list controllers with --plugin shows the plugin's controller" 0 "gustafsson" \
  "$P/bin/liebench" list controllers --plugin="$PLUGIN"
ADAPT=("$P/share/liebench/experiments/examples/frb_adaptive.cfg" --plugin="$PLUGIN")
if "$P/bin/liebench" run "${ADAPT[@]}" --controller=gustafsson -o ctl.h5 --quiet >run3.log 2>&1 &&
   "$P/bin/liebench" run "${ADAPT[@]}" --controller=P33 -o p33.h5 --quiet >>run3.log 2>&1 &&
   /usr/bin/python3 - ctl.h5 p33.h5 <<'PY'
import sys, h5py
import numpy as np
f, g = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert f["parameters"].attrs["controller"] == "gustafsson", f["parameters"].attrs["controller"]
assert all(s == b"ok" or s == "ok" for s in f["summary"]["status"][()])
h = [f["runs"][r]["step_size/value"][()] for r in sorted(f["runs"])]
h33 = [g["runs"][r]["step_size/value"][()] for r in sorted(g["runs"])]
assert any(len(a) != len(b) or not np.array_equal(a, b) for a, b in zip(h, h33)), "same steps as P33"
print("   accepted steps gustafsson", list(f["summary"]["accepted"][()]), "P33", list(g["summary"]["accepted"][()]))
PY
then ok "plugin controller runs an adaptive study (controller = gustafsson in /parameters)"
else bad "plugin controller: $(cat run3.log)"; fi
expect_status "plugin controller refuses another controller's key" 2 "does not read it" \
  "$P/bin/liebench" run "${ADAPT[@]}" --controller=gustafsson --controller.k1=0.5 -o ctl2.h5 --check
expect_status "without the plugin the name is unknown, the known ones listed" 2 "unknown controller (key 'controller') 'gustafsson'; known: H211" \
  "$P/bin/liebench" run "$P/share/liebench/experiments/examples/frb_adaptive.cfg" --controller=gustafsson -o ctl3.h5 --check
# A C++-only consumer (project(... LANGUAGES CXX), the default of a C++ user; issue 29): the
# installed package must not need C (FindMPI's C component and FindHDF5's C test compile do).
# It includes hdf5.h and mpi.h through LieBench::core and runs the library's program.
mkdir -p "$W/cxxonly"
cat >"$W/cxxonly/CMakeLists.txt" <<'CMK'
cmake_minimum_required(VERSION 3.21)
project(consumer LANGUAGES CXX)
find_package(LieBench 0.1 REQUIRED)
add_executable(consumer consumer.cpp)
target_link_libraries(consumer PRIVATE LieBench::core)
CMK
cat >"$W/cxxonly/consumer.cpp" <<'CPP'
#include <cstdio>
#include <hdf5.h>
#include <mpi.h>
#include "app/liebench_main.hpp"
#include "io/h5.hpp"
int main(int argc, char** argv) {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
#ifdef H5_HAVE_PARALLEL
  std::printf("consumer: HDF5 %u.%u.%u parallel, MPI %d\n", major, minor, release, MPI_VERSION);
#endif
  return lie::liebench_main(argc, argv);
}
CPP
if cmake -S "$W/cxxonly" -B "$W/cxxonly/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >cxx_cfg.log 2>&1 &&
   cmake --build "$W/cxxonly/build" >cxx_build.log 2>&1; then
  ok "a LANGUAGES CXX consumer configures and builds against the installed package"
  expect_status "the C++-only consumer runs a study (parallel HDF5 headers, the library's program)" 0 \
    "consumer: HDF5 1." "${MPIRUN[@]}" -n 2 "$W/cxxonly/build/consumer" run "$SRC/experiments/examples/chain.cfg" --nfold_pendulum.N=100 -o cxx.h5 --quiet
  [[ -s cxx.h5 ]] && ok "the C++-only consumer wrote its result file" || bad "the C++-only consumer wrote no cxx.h5"
else bad "C++-only consumer: $(tail -n 20 cxx_cfg.log cxx_build.log 2>&1)"; fi
grep -q "^project(liebench_example_plugin LANGUAGES CXX)" "$W/plugin/CMakeLists.txt" &&
  ok "examples/plugin enables C++ alone" || bad "examples/plugin enables a language besides CXX"

# Tests and benchmarks off: neither GTest nor Google Benchmark is looked for.
if cmake -S "$SRC" -B "$W/notests" -G Ninja -DLIEBENCH_BUILD_TESTS=OFF -DLIEBENCH_BUILD_BENCHMARKS=OFF \
     -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >notests.log 2>&1 &&
   grep -q "build liebench:" "$W/notests/build.ninja" && ! grep -qi "gtest\|libbenchmark" "$W/notests/build.ninja"; then
  ok "configures without GTest and Google Benchmark; the build (liebench, libliebench) links neither"
else bad "configure without tests: $(tail -n 5 notests.log)"; fi
# add_subdirectory from a parent project (configure; the build is the same as the project's own).
mkdir -p "$W/parent"
cat >"$W/parent/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES C CXX)
add_subdirectory("$SRC" liebench)
add_executable(parent_main "$W/plugin/my_liebench.cpp")
target_link_libraries(parent_main PRIVATE LieBench::core)
CMK
if cmake -S "$W/parent" -B "$W/parent/build" -G Ninja >parent.log 2>&1 && ! grep -q "liebench_unit_tests" "$W/parent/build/build.ninja"; then
  ok "add_subdirectory: configures, LieBench::core available, tests off in a subproject"
else bad "add_subdirectory: $(tail -n 5 parent.log)"; fi

# The Debian package.
if (cd "$BUILD" && cpack -G DEB -B "$W/deb" >"$W/cpack.log" 2>&1); then
  DEB=$(ls "$W"/deb/liebench_*.deb 2>/dev/null | head -1)
  if [[ -n "$DEB" ]]; then
    contents=$(dpkg-deb --contents "$DEB"); info=$(dpkg-deb --info "$DEB")
    for f in ./usr/bin/liebench ./usr/lib/libliebench.so ./usr/include/liebench/models/model.hpp \
             ./usr/lib/cmake/LieBench/LieBenchConfig.cmake ./usr/share/liebench/experiments/P_fig5_double_pendulum_convergence.cfg; do
      [[ "$contents" == *"$f"* ]] || bad ".deb lacks $f"
    done
    [[ "$info" == *"Depends:"*"libhdf5-openmpi-103-1"* && "$info" == *"openmpi-bin"* ]] && ok ".deb declares its dependencies" ||
      bad ".deb dependencies: $info"
  else bad "cpack made no .deb: $(tail -n 5 "$W/cpack.log")"; fi
else bad "cpack failed: $(tail -n 5 "$W/cpack.log")"; fi
finish
