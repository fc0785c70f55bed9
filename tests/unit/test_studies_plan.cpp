// Study plans: step lists, grids, run order and ids, parts, and the validation that runs
// before any file exists (studies/plan.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "studies/plan.hpp"
#include "unit/test_studies_models.hpp"

using namespace lie;
using namespace lie::studies;

namespace {

StudyPlan plan_of(const std::vector<std::pair<std::string, std::string>>& kv, long part = 0, long parts = 1,
                  PlanShape shape = {}) {
  par::Context ctx(MPI_COMM_SELF);
  if (shape.step_kinds.empty()) shape.step_kinds = {StepKind::Steps, StepKind::Dt};
  RunRequest req;
  req.part_index = part;
  req.part_count = parts;
  return make_plan("convergence", Config::from_pairs(kv), ctx, req, shape);
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(StudiesPlan, StepCounts) {
  EXPECT_EQ(parse_step_counts("steps", "2^3..2^6"), (std::vector<std::int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(parse_step_counts("steps", "10, 1e2 , 2^4"), (std::vector<std::int64_t>{10, 100, 16}));
  EXPECT_EQ(parse_step_counts("steps", "16..100"), (std::vector<std::int64_t>{16, 32, 64}));
  EXPECT_NE(usage_error([] { parse_step_counts("steps", "0"); }).find("'0'"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_step_counts("steps", "-4"); }).find(">= 1"), std::string::npos);
  EXPECT_FALSE(usage_error([] { parse_step_counts("steps", "2^7..2^3"); }).empty());
  EXPECT_FALSE(usage_error([] { parse_step_counts("steps", "abc"); }).empty());
}

TEST(StudiesPlan, GridAxes) {
  const auto axes = parse_grid("test_symmetric_tops.n = 3,4; free_rigid_body.inertia = 1 2 3 | 1 1 2");
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].values, (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(axes[1].values, (std::vector<std::string>{"1 2 3", "1 1 2"}));
  EXPECT_NE(usage_error([] { parse_grid("no_such.key = 1,2"); }).find("no_such.key"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_grid("methods = rkmk4"); }).find("methods"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_grid("test_symmetric_tops.n = 3, 0"); }).find("'0'"), std::string::npos);
  EXPECT_FALSE(usage_error([] { parse_grid("t_final = 1; t_final = 2"); }).empty());
}

TEST(StudiesPlan, RunsInLexicographicOrderWithParts) {
  const StudyPlan p = plan_of({{"model", "test_symmetric_tops"},
                               {"methods", "rkmk3, rkmk4"},
                               {"steps", "4, 8, 16"},
                               {"grid", "test_symmetric_tops.seed = 1, 2"}});
  ASSERT_EQ(p.runs.size(), 12u);
  EXPECT_EQ(p.runs[0].id, "run_00000");
  EXPECT_EQ(p.runs[11].id, "run_00011");
  // last axis fastest: steps, then method, then grid axes
  EXPECT_EQ(p.runs[1].step.steps, 8);
  EXPECT_EQ(p.runs[3].method, "rkmk4");
  EXPECT_EQ(p.runs[6].params[0].second, "2");
  EXPECT_EQ(p.runs[6].point, 1u);
  EXPECT_DOUBLE_EQ(p.runs[2].step.h, 1.0 / 16.0);
  EXPECT_EQ(p.runs[5].params_text(), "test_symmetric_tops.seed=1; method=rkmk4; steps=16");
  EXPECT_EQ(p.key_columns, (std::vector<std::string>{"test_symmetric_tops.seed", "method", "steps", "h"}));
  // three parts cover every run exactly once, in contiguous ranges
  std::multiset<std::size_t> seen;
  for (long k = 0; k < 3; ++k)
    for (std::size_t i : plan_of({{"model", "test_symmetric_tops"},
                                  {"methods", "rkmk3, rkmk4"},
                                  {"steps", "4, 8, 16"},
                                  {"grid", "test_symmetric_tops.seed = 1, 2"}},
                                 k, 3)
                             .selected)
      seen.insert(i);
  ASSERT_EQ(seen.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(seen.count(i), 1u);
  EXPECT_EQ(run_id(7, 200000), "run_000007");
}

TEST(StudiesPlan, ValidationNamesTheBadValue) {
  const std::vector<std::pair<std::string, std::string>> ok = {{"model", "test_symmetric_tops"}, {"steps", "8"}};
  auto with = [&](std::vector<std::pair<std::string, std::string>> extra) {
    auto kv = ok;
    for (auto& e : extra) {
      bool replaced = false;
      for (auto& x : kv)
        if (x.first == e.first) {
          x.second = e.second;
          replaced = true;
        }
      if (!replaced) kv.push_back(e);
    }
    return usage_error([&] { plan_of(kv); });
  };
  EXPECT_EQ(with({}), "");
  EXPECT_NE(with({{"methods", "rkmk4, no_such_method"}}).find("no_such_method"), std::string::npos);
  EXPECT_NE(with({{"model", "no_such_model"}}).find("no_such_model"), std::string::npos);
  EXPECT_NE(with({{"test_symmetric_tops.n", "0"}}).find("'0'"), std::string::npos);
  EXPECT_NE(usage_error([] { Config::from_pairs({{"t_final", "nan"}}); }).find("nan"), std::string::npos);
  EXPECT_NE(usage_error([] { Config::from_pairs({{"dt", "-0.1"}}); }).find("-0.1"), std::string::npos);
  EXPECT_NE(with({{"t_final", "-1"}}).find("t_final"), std::string::npos);
  EXPECT_NE(with({{"steps", ""}, {"dt", "0.3"}}).find("divide"), std::string::npos);
  EXPECT_NE(with({{"dt", "0.25"}}).find("only one"), std::string::npos);
  EXPECT_NE(with({{"tol", "1e-6"}}).find("tol"), std::string::npos);
  EXPECT_NE(with({{"grid", "test_symmetric_tops.n = 2, 0"}}).find("'0'"), std::string::npos);
  PlanShape adaptive;
  adaptive.step_kinds = {StepKind::Tol};
  adaptive.embedded_only = true;
  const std::string e = usage_error([&] {
    plan_of({{"model", "test_symmetric_tops"}, {"tol", "1e-6"}, {"methods", "rkmk4"}}, 0, 1, adaptive);
  });
  EXPECT_NE(e.find("embedded"), std::string::npos) << e;
}

// zip pairs keys point by point (each test_symmetric_tops.n with its own step count), is
// multiplied with grid and methods, and refuses lists of different lengths in one line.
TEST(StudiesPlan, ZippedAxes) {
  const StudyPlan p = plan_of({{"model", "test_symmetric_tops"},
                               {"methods", "rkmk3, rkmk4"},
                               {"zip", "test_symmetric_tops.n = 2, 3, 5 ; steps = 10, 20, 40"},
                               {"grid", "test_symmetric_tops.seed = 1, 2"}});
  ASSERT_EQ(p.runs.size(), 3u * 2u * 2u);  // 3 zipped points x 2 seeds x 2 methods, one step count each
  EXPECT_EQ(p.points(), 6u);
  EXPECT_TRUE(p.zipped_step);
  EXPECT_EQ(p.zipped_axes, 1u);
  EXPECT_EQ(p.key_columns,
            (std::vector<std::string>{"test_symmetric_tops.n", "test_symmetric_tops.seed", "method", "steps", "h"}));
  for (const auto& r : p.runs) {
    const std::string n = r.params[0].second;
    const std::int64_t expected = n == "2" ? 10 : n == "3" ? 20 : 40;
    EXPECT_EQ(r.step.steps, expected) << r.label();
  }
  EXPECT_EQ(p.runs[0].params_text(), "test_symmetric_tops.n=2; test_symmetric_tops.seed=1; method=rkmk3; steps=10");
  EXPECT_EQ(p.runs[5].params_text(), "test_symmetric_tops.n=3; test_symmetric_tops.seed=1; method=rkmk4; steps=20");
  EXPECT_EQ(p.point(4).params[0], (std::pair<std::string, std::string>{"test_symmetric_tops.n", "5"}));
  EXPECT_NE(p.point(4).config_text({}).find("\ntest_symmetric_tops.n = 5\n"), std::string::npos);
  EXPECT_EQ(p.point(4).model.name, "test_symmetric_tops");
  ASSERT_EQ(p.point(4).methods.size(), 2u);
  EXPECT_EQ(p.point(4).methods[1].spec, "rkmk4");
  // zip without a step key: the step axis multiplies as usual
  const StudyPlan q = plan_of({{"model", "test_symmetric_tops"},
                               {"steps", "8, 16"},
                               {"zip", "test_symmetric_tops.n = 2, 3 ; test_symmetric_tops.seed = 4, 5"}});
  ASSERT_EQ(q.runs.size(), 4u);
  EXPECT_EQ(q.runs[3].params_text(), "test_symmetric_tops.n=3; test_symmetric_tops.seed=5; method=rkmk4; steps=16");
  // refused: different lengths, step key in both places, key in zip and grid, two step keys
  const std::string e = usage_error([] {
    plan_of({{"model", "test_symmetric_tops"}, {"zip", "test_symmetric_tops.n = 2, 3, 5 ; steps = 10, 20"}});
  });
  EXPECT_NE(e.find("same number of values"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(usage_error([] {
              plan_of({{"model", "test_symmetric_tops"}, {"steps", "8"}, {"zip", "test_symmetric_tops.n = 2 ; steps = 10"}});
            }).find("remove 'steps'"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              plan_of({{"model", "test_symmetric_tops"},
                       {"steps", "8"},
                       {"zip", "test_symmetric_tops.n = 2, 3"},
                       {"grid", "test_symmetric_tops.n = 4"}});
            }).find("both 'zip' and 'grid'"),
            std::string::npos);
  EXPECT_FALSE(usage_error([] {
                 plan_of({{"model", "test_symmetric_tops"}, {"zip", "steps = 10, 20 ; dt = 0.1, 0.2"}});
               }).empty());
  EXPECT_NE(usage_error([] {
              plan_of({{"model", "test_symmetric_tops"}, {"zip", "test_symmetric_tops.n = 2, 0 ; steps = 4, 8"}});
            }).find("'0'"),
            std::string::npos);
  EXPECT_NE(usage_error([] { plan_of({{"model", "test_symmetric_tops"}, {"zip", "steps = 2^3..2^5, 4"}}); }).find("one integer"),
            std::string::npos);
}

// methods = applicable (issue 25): every registered method that runs on the model, from what
// models and methods declare (no hand-kept list): the free rigid body takes the Lie group,
// classical and rigid-body splitting methods but not SLGI (a Hamiltonian on T*G) or the
// variational integrators ((S^2)^n); the methods that need a user-supplied name are not among
// them; with a tolerance only the embedded pairs.
TEST(StudiesPlan, MethodsApplicableExpandsToWhatRunsOnTheModel) {
  const StudyPlan p = plan_of({{"model", "free_rigid_body"}, {"methods", "applicable"}, {"steps", "8"}});
  auto has = [&](const std::string& m) { return std::find(p.methods.begin(), p.methods.end(), m) != p.methods.end(); };
  for (const char* m : {"rkmk4", "rkmk54", "cf4", "cg3", "rk4_proj", "dopri54", "dlm", "no_squish", "rotor_exact"})
    EXPECT_TRUE(has(m)) << m;
  for (const char* m : {"slgi", "slgi_kk", "lgvi", "lgvi_explicit", "rkmk_user", "classical_user", "composition"})
    EXPECT_FALSE(has(m)) << m;
  EXPECT_EQ(p.runs.size(), p.methods.size());
  EXPECT_EQ(p.point(0).methods.size(), p.methods.size());
  // the heavy top on T*SO(3): SLGI and the rigid-body splittings join; on se(3)* both leave
  const StudyPlan q = plan_of({{"model", "heavy_top"}, {"heavy_top.formulation", "tstar_so3"}, {"methods", "applicable"},
                               {"steps", "8"}});
  EXPECT_NE(std::find(q.methods.begin(), q.methods.end(), "slgi"), q.methods.end());
  EXPECT_NE(std::find(q.methods.begin(), q.methods.end(), "dlm"), q.methods.end());
  const StudyPlan lp = plan_of({{"model", "heavy_top"}, {"heavy_top.formulation", "lie_poisson"},
                                {"methods", "applicable"}, {"steps", "8"}});
  EXPECT_EQ(std::find(lp.methods.begin(), lp.methods.end(), "slgi"), lp.methods.end());
  EXPECT_EQ(std::find(lp.methods.begin(), lp.methods.end(), "dlm"), lp.methods.end());
  // tolerances: embedded pairs only
  PlanShape tol_shape;
  tol_shape.step_kinds = {StepKind::Tol};
  const StudyPlan t = plan_of({{"model", "free_rigid_body"}, {"methods", "applicable"}, {"tol", "1e-6"}}, 0, 1, tol_shape);
  ASSERT_FALSE(t.methods.empty());
  for (const auto& m : t.methods) EXPECT_GT(method_entry(m).info.embedded_order, 0) << m;
  EXPECT_NE(usage_error([] { plan_of({{"model", "free_rigid_body"}, {"methods", "applicable, rkmk4"}, {"steps", "8"}}); })
                .find("give applicable alone"),
            std::string::npos);
}

// The compositions join `applicable` as composition:<set>@<base> (issue 26: the benchmark picks
// them up with no edit): every shipped set, then the file's own sections, over every applicable
// second-order time-symmetric method, after the registered methods; none with a tolerance.
TEST(StudiesPlan, MethodsApplicableComposesEverySecondOrderSymmetricMethod) {
  auto compositions = [](const StudyPlan& p) {
    std::vector<std::string> out;
    for (const auto& m : p.methods)
      if (m.rfind("composition:", 0) == 0) out.push_back(m);
    return out;
  };
  const StudyPlan p = plan_of({{"model", "free_rigid_body"}, {"methods", "applicable"}, {"steps", "8"}});
  const std::vector<std::string> rigid = {"composition:yoshida4@dlm",       "composition:yoshida4@no_squish",
                                          "composition:yoshida4@rotor_exact", "composition:suzuki4@dlm",
                                          "composition:suzuki4@no_squish",    "composition:suzuki4@rotor_exact",
                                          "composition:kahan_li6@dlm",        "composition:kahan_li6@no_squish",
                                          "composition:kahan_li6@rotor_exact"};
  EXPECT_EQ(compositions(p), rigid);
  ASSERT_GE(p.methods.size(), rigid.size());
  EXPECT_EQ(std::vector<std::string>(p.methods.end() - static_cast<std::ptrdiff_t>(rigid.size()), p.methods.end()), rigid);
  // a user section joins after the shipped sets; on the pendulum the variational integrators are the bases
  const StudyPlan q = plan_of({{"model", "nfold_pendulum"}, {"methods", "applicable"}, {"steps", "8"},
                               {"composition.half.coefficients", "1/2, 1/2"}});
  const auto qc = compositions(q);
  EXPECT_EQ(qc.front(), "composition:yoshida4@lgvi");
  EXPECT_EQ(qc.back(), "composition:half@lgvi");
  EXPECT_EQ(qc.size(), 4u);  // lgvi_explicit needs a diagonal inertia, which the pendulum has not
  // the heavy top on T*SO(3): SLGI at its default theta = 1/2 composes too; on se(3)* nothing does
  const StudyPlan t = plan_of({{"model", "heavy_top"}, {"heavy_top.formulation", "tstar_so3"}, {"methods", "applicable"},
                               {"steps", "8"}});
  const auto tc = compositions(t);
  EXPECT_NE(std::find(tc.begin(), tc.end(), "composition:kahan_li6@slgi"), tc.end());
  EXPECT_NE(std::find(tc.begin(), tc.end(), "composition:suzuki4@dlm"), tc.end());
  const StudyPlan lp = plan_of({{"model", "heavy_top"}, {"heavy_top.formulation", "lie_poisson"},
                                {"methods", "applicable"}, {"steps", "8"}});
  EXPECT_TRUE(compositions(lp).empty());
  PlanShape tol_shape;
  tol_shape.step_kinds = {StepKind::Tol};
  EXPECT_TRUE(compositions(plan_of({{"model", "free_rigid_body"}, {"methods", "applicable"}, {"tol", "1e-6"}}, 0, 1,
                                   tol_shape))
                  .empty());
}
