// The small systems (free rigid body, heavy top, spring-connected pendula, bodies on the sphere,
// elastic rod) are owned by rank 0 (models/root_owned.hpp): every layout of ranks x threads
// must give bitwise the numbers of a serial run, on every rank. The variational integrators need all spheres on one rank and say
// so when a model splits them.
#include <gtest/gtest.h>

#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/model.hpp"
#include "models/sphere_lagrangian.hpp"

using namespace lie;

namespace {

struct ModelRun {
  std::vector<std::pair<std::string, std::string>> cfg;
  std::string method;
};

// Integrates 40 steps of h = 0.01 and returns the observables and the distance to the initial state.
std::vector<double> integrate(const ModelRun& r, par::Context& ctx) {
  const Config cfg = Config::from_pairs(r.cfg);
  auto model = make_model(cfg, ctx);
  auto st = make_stepper(r.method, cfg, *model);
  st->bind(*model, ctx);
  std::vector<double> y(model->space().state_size()), y0;
  model->initial_state(y.data());
  y0 = y;
  FixedStepOptions opt;
  opt.h = 0.01;
  opt.steps = 40;
  integrate_fixed(*st, y.data(), opt, nullptr);
  Observables o;
  model->observables(0.4, y.data(), o);
  std::vector<double> out;
  for (const auto& [k, v] : o.items()) out.push_back(v);
  out.push_back(model->state_distance(y.data(), y0.data(), ctx));
  if (model->capabilities().exact_solution) {
    std::vector<double> ye(y.size());
    model->exact_solution(0.4, ye.data());
    out.push_back(model->state_distance(y.data(), ye.data(), ctx));
  }
  return out;
}

// A sphere model that splits its spheres over the ranks (as a distributed chain would).
class SplitSpheres final : public Model, public SphereLagrangian {
 public:
  explicit SplitSpheres(const par::Context& ctx) {
    space_.add(FactorKind::SE3OnTS2, par::balanced_range(4, ctx.size(), ctx.rank()).size(), "spheres");
  }
  std::string name() const override { return "split_spheres_test"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 4; }
  int state_dim_per_component() const override { return 6; }
  void initial_state(double*) const override {}
  void vector_field(double, const double*, double*) override {}
  void observables(double, const double*, Observables&) override {}
  std::vector<std::string> observable_names() const override { return {}; }
  ModelCapabilities capabilities() const override {
    ModelCapabilities c;
    c.sphere_lagrangian = true;
    return c;
  }
  std::size_t sphere_count() const override { return 4; }
  double inertia(std::size_t i, std::size_t j) const override { return i == j ? 1.0 : 0.0; }
  bool diagonal_inertia() const override { return true; }
  double potential(const double*) const override { return 0.0; }
  void potential_gradient(const double*, double* d) const override {
    for (int k = 0; k < 12; ++k) d[k] = 0.0;
  }

 private:
  Space space_;
};

}  // namespace

TEST(RigidRanks, SmallModelsGiveTheSerialNumbersOnEveryLayout) {
  const std::vector<ModelRun> runs = {
      {{{"model", "free_rigid_body"}, {"free_rigid_body.attitude", "true"}}, "rkmk4"},
      {{{"model", "heavy_top"}}, "slgi"},
      {{{"model", "heavy_top"}, {"heavy_top.formulation", "quadratic"}}, "slgi_kk"},
      {{{"model", "heavy_top"}, {"heavy_top.formulation", "lie_poisson"}}, "rkmk4"},
      {{{"model", "spring_pendula"}}, "lgvi_explicit"},
      {{{"model", "spring_pendula"}, {"spring_pendula.initial", "random"}}, "lgvi"},
      {{{"model", "spring_pendula"}}, "rkmk4"},
      {{{"model", "sphere_bodies"}}, "lgvi_explicit"},
      {{{"model", "sphere_bodies"}, {"sphere_bodies.formulation", "second_order"}}, "rk2"},
      {{{"model", "elastic_rod"}, {"elastic_rod.stiffness", "1"}}, "lgvi"},
      {{{"model", "elastic_rod"}, {"elastic_rod.stiffness", "1"}, {"elastic_rod.formulation", "second_order"}}, "rk4"},
  };
  par::Context world(MPI_COMM_WORLD), self(MPI_COMM_SELF);
  for (const ModelRun& r : runs) {
    const auto distributed = integrate(r, world);
    const auto serial = integrate(r, self);
    ASSERT_EQ(distributed.size(), serial.size());
    for (std::size_t i = 0; i < serial.size(); ++i)
      EXPECT_EQ(distributed[i], serial[i]) << r.cfg[0].second << " / " << r.method << ", value " << i << ", rank "
                                           << world.rank() << " of " << world.size();
  }
}

TEST(RigidRanks, VariationalIntegratorsNeedAllSpheresOnOneRank) {
  par::Context world(MPI_COMM_WORLD);
  SplitSpheres model(world);
  for (const char* m : {"lgvi", "lgvi_explicit"}) {
    auto st = make_stepper(m, Config::from_pairs({}), model);
    if (world.size() == 1) EXPECT_NO_THROW(st->bind(model, world));
    else EXPECT_THROW(st->bind(model, world), UsageError) << m;
  }
}
