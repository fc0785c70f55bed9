// An out-of-tree method: RKMK with Ralston's third-order tableau (Ralston 1962, the 3-stage
// method of minimum error bound):
//     0   |
//    1/2  | 1/2
//    3/4  | 0    3/4
//   ------+----------------
//         | 2/9  1/3  4/9
// applied to the dexpinv equation ([P] eq. (6)) by the suite's RKMK stepper, with the exact
// dexpinv of each factor. Registered with the same one line as the built-in methods.
#include <memory>

#include "methods/butcher.hpp"
#include "methods/rkmk.hpp"
#include "methods/stepper.hpp"

namespace example {

lie::ButcherTable ralston3() {
  lie::ButcherTable t;
  t.name = "ralston3";
  t.stages = 3;
  t.order = 3;
  t.A = {0, 0, 0, 0.5, 0, 0, 0, 0.75, 0};
  t.b = {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0};
  t.c = {0, 0.5, 0.75};
  t.source = "Ralston, Math. Comp. 16 (1962) 431-437";
  t.validate();
  return t;
}

lie::MethodInfo ralston3_info() {
  lie::MethodInfo m;
  m.name = "rkmk_ralston3";
  m.family = "rkmk";
  m.order = 3;
  m.stages = 3;
  m.exps_per_step = 3;
  m.description = "example plugin: RKMK with Ralston's 3rd-order tableau, exact dexpinv";
  m.source = "examples/plugin; Ralston 1962";
  return m;
}

LIEBENCH_REGISTER(lie::MethodEntry,
                  lie::MethodEntry{"rkmk_ralston3", ralston3_info(), [](const lie::MethodOptions&) {
                                     return std::make_unique<lie::RkmkStepper>(ralston3_info(), ralston3(),
                                                                               lie::kExactDexpinv);
                                   }})

}  // namespace example
