// Method tables as data: rooted trees and order conditions, the orders of every built-in
// Butcher and commutator-free table, user tableaux from experiment files (parsing, computed
// order, measured order, `liebench tableau`), and the method registry entries.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

#include "app/commands.hpp"
#include "methods/butcher.hpp"
#include "methods/commutator_free.hpp"
#include "methods/order_conditions.hpp"
#include "test_problems.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

ButcherTable user_table(std::vector<std::pair<std::string, std::string>> kv) {
  return butcher_table_from_config(Config::from_pairs(kv));
}

std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("liebench_methods_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

double measured_order(const std::function<std::unique_ptr<Stepper>()>& make, long n0) {
  const double T = 1.0;
  const std::vector<std::pair<FactorKind, std::size_t>> blocks = {{FactorKind::SO3Left, 1}, {FactorKind::SE3OnTS2, 1}};
  std::vector<double> exact(TwoExponentialProblem(blocks, 5).space().state_size());
  TwoExponentialProblem(blocks, 5).exact_solution(T, exact.data());
  std::vector<double> hs, errs;
  for (int k = 0; k < 4; ++k) {
    TwoExponentialProblem model(blocks, 5);
    auto st = make();
    const long n = n0 << k;
    errs.push_back(distance(run_fixed(*st, model, T, n), exact));
    hs.push_back(T / static_cast<double>(n));
  }
  return fitted_order(hs, errs);
}

std::string run_command(const std::string& name, const std::vector<std::string>& args, int* status) {
  const CommandEntry* c = CommandRegistry::instance().find(name);
  EXPECT_NE(c, nullptr);
  ::testing::internal::CaptureStdout();
  try {
    *status = c->main(args);
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

}  // namespace

TEST(MethodTables, RootedTrees) {
  const std::vector<int> expected = {0, 1, 1, 2, 4, 9, 20, 48, 115};  // OEIS A000081
  std::vector<int> count(kMaxTreeOrder + 1, 0);
  for (const auto& t : rooted_trees()) ++count[static_cast<std::size_t>(t.order)];
  for (int n = 1; n <= kMaxTreeOrder; ++n) EXPECT_EQ(count[static_cast<std::size_t>(n)], expected[static_cast<std::size_t>(n)]) << n;
  // densities: gamma([t,t]) = 3, gamma([[t]]) = 6, gamma([[[t]]]) = 24, tall tree of order n = n!
  for (const auto& t : rooted_trees()) {
    if (t.notation == "[t,t]") {
      EXPECT_EQ(t.gamma, 3.0);
    }
    if (t.notation == "[[t]]") {
      EXPECT_EQ(t.gamma, 6.0);
    }
    if (t.notation == "[[[t]]]") {
      EXPECT_EQ(t.gamma, 24.0);
    }
    if (t.notation == "[t,[t]]") {
      EXPECT_EQ(t.gamma, 8.0);
    }
  }
  // every tree appears once
  std::set<std::string> seen;
  for (const auto& t : rooted_trees()) EXPECT_TRUE(seen.insert(t.notation).second) << t.notation;
}

TEST(MethodTables, BuiltinButcherTablesHaveTheirOrders) {
  for (const auto& name : butcher_table_names()) {
    const ButcherTable& t = butcher_table(name);
    const TableOrders o = table_orders(t);
    EXPECT_EQ(o.main.order, t.order) << name;
    if (t.has_embedded()) {
      EXPECT_EQ(o.embedded.order, t.embedded_order) << name;
    }
  }
  EXPECT_EQ(table_orders(butcher_table("rk4")).main.order, 4);
  EXPECT_EQ(table_orders(butcher_table("kutta3")).main.order, 3);
  EXPECT_EQ(table_orders(butcher_table("dopri5")).main.order, 5);
  EXPECT_EQ(table_orders(butcher_table("dopri5")).embedded.order, 4);
  EXPECT_TRUE(butcher_table("dopri5").fsal());
}

TEST(MethodTables, CommutatorFreeTables) {
  struct Expect {
    const char* name;
    int evals_main, evals_pair, exps_main, exps_pair;
  };
  for (const Expect& e : {Expect{"cf4", 4, 4, 5, 5}, Expect{"cf43", 4, 5, 5, 8}, Expect{"cf32a", 3, 3, 3, 4},
                          Expect{"cf32b", 3, 3, 3, 4}, Expect{"cg3", 3, 3, 6, 6}}) {
    const CfTable& t = cf_table(e.name);
    // the underlying classical method ([P] 2.2) has the order of the Lie group method
    const TableOrders o = table_orders(t.underlying());
    EXPECT_EQ(o.main.order, t.order) << e.name;
    if (t.has_embedded()) {
      EXPECT_EQ(o.embedded.order, t.embedded_order) << e.name;
    }
    EXPECT_EQ(t.evaluations(false), e.evals_main) << e.name;
    EXPECT_EQ(t.evaluations(true), e.evals_pair) << e.name;
    EXPECT_EQ(t.exponentials(false), e.exps_main) << e.name;
    EXPECT_EQ(t.exponentials(true), e.exps_pair) << e.name;
    const MethodInfo& info = MethodRegistry::instance().get(e.name, "method").info;
    EXPECT_EQ(info.order, t.order);
    EXPECT_EQ(info.embedded_order, t.embedded_order);
    EXPECT_EQ(info.stages, e.evals_pair);
    EXPECT_EQ(info.exps_per_step, e.exps_pair);
  }
  // [P] eq. (9): c = (0, 1/2, 1/2, 1); eq. (34): cbar_3 = 3/4; CG3: c = (0, 3/4, 17/24)
  EXPECT_DOUBLE_EQ(cf_table("cf4").c(3), 1.0);
  EXPECT_DOUBLE_EQ(cf_table("cf43").c(4), 0.75);
  EXPECT_DOUBLE_EQ(cf_table("cg3").c(2), 17.0 / 24.0);
  // Crouch-Grossman order 3 needs, besides the classical conditions,
  // sum_i b_i^2 c_i + 2 sum_{i<j} b_i c_i b_j = 1/3 (Owren & Marthinsen 1999).
  const ButcherTable cg = cf_table("cg3").underlying();
  double s = 0.0;
  for (int i = 0; i < 3; ++i) {
    s += cg.b[i] * cg.b[i] * cg.c[i];
    for (int j = i + 1; j < 3; ++j) s += 2.0 * cg.b[i] * cg.c[i] * cg.b[j];
  }
  EXPECT_NEAR(s, 1.0 / 3.0, 1e-15);
}

TEST(MethodTables, UserTableauFormats) {
  // RK4 in three notations and with fractions
  const ButcherTable rows = user_table({{"tableau.A", "0; 1/2; 0, 1/2; 0, 0, 1"}, {"tableau.b", "1/6, 1/3, 1/3, 1/6"}});
  const ButcherTable full = user_table(
      {{"tableau.A", "0 0 0 0  0.5 0 0 0  0 0.5 0 0  0 0 1 0"}, {"tableau.b", "1/6 1/3 1/3 1/6"}});
  const ButcherTable lower = user_table({{"tableau.A", "1/2, 0, 1/2, 0, 0, 1"}, {"tableau.b", "1/6, 1/3, 1/3, 1/6"},
                                         {"tableau.c", "0, 0.5, 0.5, 1"}});
  for (const ButcherTable* t : {&rows, &full, &lower}) {
    EXPECT_EQ(t->A, butcher_table("rk4").A);
    EXPECT_EQ(t->b, butcher_table("rk4").b);
    EXPECT_EQ(t->c, butcher_table("rk4").c);
    EXPECT_EQ(t->order, 4);
    EXPECT_FALSE(t->has_embedded());
  }
  // Bogacki-Shampine 3(2) with embedded weights: both orders computed
  const ButcherTable bs = user_table({{"tableau.A", "0; 1/2; 0, 3/4; 2/9, 1/3, 4/9"},
                                      {"tableau.b", "2/9, 1/3, 4/9, 0"},
                                      {"tableau.bhat", "7/24, 1/4, 1/3, 1/8"}});
  EXPECT_EQ(bs.order, 3);
  EXPECT_EQ(bs.embedded_order, 2);
  EXPECT_TRUE(bs.fsal());
  // bad input: a clear UsageError each
  EXPECT_THROW(user_table({{"tableau.b", "1"}}), UsageError);                                  // no A
  EXPECT_THROW(user_table({{"tableau.A", "0; 1/2"}, {"tableau.b", "0, 1, 0"}}), UsageError);  // rows
  EXPECT_THROW(user_table({{"tableau.A", "0, 1, 2"}, {"tableau.b", "0.5, 0.5"}}), UsageError);  // count
  EXPECT_THROW(user_table({{"tableau.A", "0; 1/0"}, {"tableau.b", "0.5, 0.5"}}), UsageError);   // 1/0
  EXPECT_THROW(user_table({{"tableau.A", "0; x"}, {"tableau.b", "0.5, 0.5"}}), UsageError);     // not a number
  EXPECT_THROW(user_table({{"tableau.A", "1/2; 1/2, 1/2"}, {"tableau.b", "0.5, 0.5"}}), UsageError);  // implicit
  EXPECT_THROW(user_table({{"tableau.A", "0; 1"}, {"tableau.b", "0.5, 0.5"}, {"tableau.c", "0, 0.9"}}),
               UsageError);                                                                  // c != row sums
  EXPECT_THROW(user_table({{"tableau.A", "0; 1"}, {"tableau.b", "0.5, 0.6"}}), UsageError);   // not even order 1
}

// A table that violates an order condition is reported (and measured) as lower order.
TEST(MethodTables, ViolatedConditionGivesLowerOrder) {
  // RK4 with a43 = 0.9, a41 = 0.1 (c4 = 1 kept): violates sum b_i a_ij c_j = 1/6, so order 2.
  const std::vector<std::pair<std::string, std::string>> kv = {{"tableau.A", "0; 1/2; 0, 1/2; 0.1, 0, 0.9"},
                                                               {"tableau.b", "1/6, 1/3, 1/3, 1/6"}};
  const ButcherTable t = user_table(kv);
  EXPECT_EQ(t.order, 2);
  const OrderReport r = table_orders(t).main;
  int violated3 = 0;
  for (const auto& c : r.conditions)
    if (c.order == 3 && std::fabs(c.residual()) > r.tolerance) ++violated3;
  EXPECT_EQ(violated3, 1);
  ZeroField any(1);
  auto st = make_stepper("rkmk_user", Config::from_pairs(kv), any);
  EXPECT_EQ(st->info().order, 2);
  const double p_rkmk = measured_order([&] { return make_stepper("rkmk_user", Config::from_pairs(kv), any); }, 32);
  const double p_classical =
      measured_order([&] { return make_stepper("classical_user", Config::from_pairs(kv), any); }, 32);
  std::printf("\nRK4 with a43 = 0.9, a41 = 0.1: computed order %d, measured RKMK %.3f, classical %.3f\n", t.order,
              p_rkmk, p_classical);
  EXPECT_NEAR(p_rkmk, 2.0, 0.2);
  EXPECT_NEAR(p_classical, 2.0, 0.2);
}

// A user method defined in an experiment file runs with the order the suite computes for it;
// `liebench tableau FILE.cfg` prints every condition and the orders found.
TEST(MethodTables, UserTableauFromExperimentFile) {
  // Kutta's 3/8 rule (order 4), with an INI section, ';' row separators and a comment.
  const std::string cfg_text =
      "model = free_rigid_body\n"
      "dexpinv = exact\n"
      "[tableau]\n"
      "name = three_eighths\n"
      "A = 0; 1/3; -1/3, 1; 1, -1, 1   # Kutta's 3/8 rule\n"
      "b = 1/8, 3/8, 3/8, 1/8\n";
  const std::string path = write_file("three_eighths.cfg", cfg_text);
  const Config cfg = Config::from_file(path);
  const ButcherTable t = butcher_table_from_config(cfg);
  EXPECT_EQ(t.name, "three_eighths");
  EXPECT_EQ(t.order, 4);
  EXPECT_DOUBLE_EQ(t.c[2], 2.0 / 3.0);
  ZeroField any(1);
  auto st = make_stepper("rkmk_user", cfg, any);
  EXPECT_EQ(st->info().order, 4);
  EXPECT_EQ(st->info().family, "rkmk");
  const double p_rkmk = measured_order([&] { return make_stepper("rkmk_user", cfg, any); }, 16);
  const double p_classical = measured_order([&] { return make_stepper("classical_user", cfg, any); }, 16);
  std::printf("\nuser 3/8 rule from %s: computed order %d, measured RKMK %.3f, classical %.3f\n", path.c_str(),
              t.order, p_rkmk, p_classical);
  EXPECT_NEAR(p_rkmk, 4.0, 0.2);
  EXPECT_NEAR(p_classical, 4.0, 0.2);

  int status = -1;
  const std::string out = run_command("tableau", {path}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("order found: 4"), std::string::npos) << out;
  EXPECT_NE(out.find("[[t,t]]"), std::string::npos) << out;  // conditions of order 4 are listed
  EXPECT_NE(out.find("VIOLATED"), std::string::npos) << out;  // and the first failing order 5

  // An embedded pair from a file (Bogacki-Shampine 3(2)) runs adaptively with rkmk_user.
  const std::string bs = write_file("bs32.cfg",
                                    "[tableau]\nA = 0; 1/2; 0, 3/4; 2/9, 1/3, 4/9\nb = 2/9, 1/3, 4/9, 0\n"
                                    "bhat = 7/24, 1/4, 1/3, 1/8\n");
  const std::string out_bs = run_command("tableau", {bs}, &status);
  EXPECT_NE(out_bs.find("order found: 3, embedded order found: 2"), std::string::npos) << out_bs;
  const Config bs_cfg = Config::from_file(bs);
  for (const char* m : {"rkmk_user", "classical_user"}) {
    auto pair = make_stepper(m, bs_cfg, any);
    EXPECT_EQ(pair->info().order, 3);
    EXPECT_EQ(pair->info().embedded_order, 2);
    TwoExponentialProblem model({{FactorKind::SO3Left, 1}, {FactorKind::SE3OnTS2, 1}}, 5);
    par::Context ctx(MPI_COMM_SELF);
    pair->bind(model, ctx);
    std::vector<double> y(model.space().state_size()), exact(y.size());
    model.initial_state(y.data());
    model.exact_solution(1.0, exact.data());
    const AdaptiveRecord rec =
        integrate_adaptive(*pair, ctx, y.data(), adaptive_options(bs_cfg, pair->info(), 0.0, 1.0, 1e-7), nullptr,
                           y.size());
    EXPECT_LT(distance(y, exact), 1e-5) << m;
    EXPECT_GT(rec.accepted, 10u) << m;
  }

  // Built-in tables through the same command.
  EXPECT_NE(run_command("tableau", {"dopri5"}, &status).find("order found: 5, embedded order found: 4 (claimed 5 and 4)"),
            std::string::npos);
  const std::string all = run_command("tableau", {"--all"}, &status);
  for (const auto& n : butcher_table_names()) EXPECT_NE(all.find(n), std::string::npos) << n;
  for (const auto& n : cf_table_names()) EXPECT_NE(all.find(n), std::string::npos) << n;
  EXPECT_THROW(run_command("tableau", {"/no/such/file.cfg"}, &status), UsageError);
  const std::string typo = write_file("typo.cfg", "[tableau]\nAA = 0; 1\nb = 0.5, 0.5\n");
  EXPECT_THROW(run_command("tableau", {typo}, &status), UsageError);
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

// A user tableau equal to a built-in one reproduces the built-in method bit for bit.
TEST(MethodTables, UserTableauMatchesBuiltin) {
  const Config cfg = Config::from_pairs({{"tableau.A", "0; 1/2; 0, 1/2; 0, 0, 1"}, {"tableau.b", "1/6, 1/3, 1/3, 1/6"}});
  ZeroField any(1);
  for (auto [user, builtin] : {std::pair{"rkmk_user", "rkmk4"}, std::pair{"classical_user", "rk4"}}) {
    TwoExponentialProblem m1({{FactorKind::SE3OnTS2, 2}}, 9), m2({{FactorKind::SE3OnTS2, 2}}, 9);
    auto a = make_stepper(user, cfg, any);
    auto b = make_stepper(builtin, Config::from_pairs({}), any);
    EXPECT_EQ(run_fixed(*a, m1, 1.0, 37), run_fixed(*b, m2, 1.0, 37)) << user;
  }
}

// Commutator-free methods as data (keys cf.*): tables equal to cf4, cf43 and cg3 reproduce the
// built-in methods bit for bit; the nodes and the structure are checked.
const std::vector<std::pair<std::string, std::string>> kUserCf4 = {
    {"cf.stage2", "1/2"},
    {"cf.stage3", "0, 1/2"},
    {"cf.stage4", "Y2: -1/2, 0, 1"},
    {"cf.output", "3/12, 2/12, 2/12, -1/12 ; -1/12, 2/12, 2/12, 3/12"}};

TEST(MethodTables, UserCfTableMatchesBuiltin) {
  ZeroField any(1);
  const auto cf43 = [] {
    auto kv = kUserCf4;
    kv.push_back({"cf.stage5", "0, 3/4"});
    kv.push_back({"cf.embedded", "1/3; -1/9, 3/9, 0, 0, 4/9"});
    return kv;
  }();
  const std::vector<std::pair<std::string, std::string>> cg3 = {
      {"cf.stage2", "3/4"}, {"cf.stage3", "119/216; 0, 17/108"}, {"cf.output", "13/51; 0, -2/3; 0, 0, 24/17"}};
  for (const auto& [kv, builtin] : {std::pair{kUserCf4, "cf4"}, std::pair{cf43, "cf43"}, std::pair{cg3, "cg3"}}) {
    const CfTable t = cf_table_from_config(Config::from_pairs(kv));
    EXPECT_EQ(t.order, cf_table(builtin).order) << builtin;
    EXPECT_EQ(t.embedded_order, cf_table(builtin).embedded_order) << builtin;
    TwoExponentialProblem m1({{FactorKind::SE3OnTS2, 2}, {FactorKind::SO3Left, 1}}, 9),
        m2({{FactorKind::SE3OnTS2, 2}, {FactorKind::SO3Left, 1}}, 9);
    auto a = make_stepper("cf_user", Config::from_pairs(kv), any);
    auto b = make_stepper(builtin, Config::from_pairs({}), any);
    EXPECT_EQ(a->info().stages, b->info().stages) << builtin;
    EXPECT_EQ(a->info().exps_per_step, b->info().exps_per_step) << builtin;
    EXPECT_EQ(run_fixed(*a, m1, 1.0, 37), run_fixed(*b, m2, 1.0, 37)) << builtin;
  }
  // nodes: given and equal to the coefficient sums, or refused naming the stage
  auto kv = kUserCf4;
  kv.push_back({"cf.c", "0, 1/2, 1/2, 1"});
  EXPECT_NO_THROW(cf_table_from_config(Config::from_pairs(kv)));
  kv.back().second = "0, 1/2, 1/2, 0.9";
  try {
    cf_table_from_config(Config::from_pairs(kv));
    ADD_FAILURE() << "wrong node accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("c_4"), std::string::npos) << e.what();
  }
  // bad input: no output, a gap in the stages, a base point that is not earlier, a row too long,
  // not explicit, not consistent
  using KV = std::vector<std::pair<std::string, std::string>>;
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "1/2"}})), UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage3", "1/2"}, {"cf.output", "1"}})), UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "Y2: 1/2"}, {"cf.output", "0, 1"}})),
               UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "1/2, 0, 0"}, {"cf.output", "0, 1"}})),
               UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "0, 1/2"}, {"cf.output", "0, 1"}})),
               UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "1/2"}, {"cf.output", "0, 0.9"}})),
               UsageError);
  EXPECT_THROW(cf_table_from_config(Config::from_pairs(KV{{"cf.stage2", "Z2: 1/2"}, {"cf.output", "0, 1"}})),
               UsageError);
}

// One wrong coefficient (stage 2 of cf4 with 1/3 for 1/2, a typo) is reported as order 1 (the
// underlying method violates sum b_i c_i = 1/2) and measured as order 1 on the problem with
// the exact solution exp(phi(t) xi1) exp(t xi2) y0; the correct table measures order 4.
TEST(MethodTables, UserCfWrongCoefficientGivesLowerOrder) {
  auto wrong = kUserCf4;
  wrong[0].second = "1/3";
  const CfTable t = cf_table_from_config(Config::from_pairs(wrong));
  EXPECT_EQ(t.order, 1);
  ZeroField any(1);
  EXPECT_EQ(make_stepper("cf_user", Config::from_pairs(wrong), any)->info().order, 1);
  const double p_wrong = measured_order([&] { return make_stepper("cf_user", Config::from_pairs(wrong), any); }, 32);
  const double p_right = measured_order([&] { return make_stepper("cf_user", Config::from_pairs(kUserCf4), any); }, 16);
  std::printf("\nuser cf4 table: measured order %.3f; with stage2 = 1/3: computed %d, measured %.3f\n", p_right,
              t.order, p_wrong);
  EXPECT_NEAR(p_right, 4.0, 0.2);
  EXPECT_NEAR(p_wrong, 1.0, 0.2);
}

// The shipped example file defines cf4 as data; `liebench tableau FILE` reports it as order 4.
TEST(MethodTables, UserCfExampleFile) {
  const std::string path = std::string(LIEBENCH_SOURCE_DIR) + "/experiments/examples/cf_user_convergence.cfg";
  const Config cfg = Config::from_file(path);
  const CfTable t = cf_table_from_config(cfg);
  EXPECT_EQ(t.order, 4);
  ZeroField any(1);
  TwoExponentialProblem m1({{FactorKind::SE3OnTS2, 2}}, 4), m2({{FactorKind::SE3OnTS2, 2}}, 4);
  auto a = make_stepper("cf_user", cfg, any);
  auto b = make_stepper("cf4", Config::from_pairs({}), any);
  EXPECT_EQ(run_fixed(*a, m1, 1.0, 11), run_fixed(*b, m2, 1.0, 11));
  int status = -1;
  const std::string out = run_command("tableau", {path}, &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("order found: 4"), std::string::npos) << out;
  EXPECT_NE(out.find("Y4 = exp(h(-0.5 f1 + 1 f3)) Y2"), std::string::npos) << out;
}

TEST(MethodTables, RegistryEntries) {
  for (const auto* e : MethodRegistry::instance().all()) {
    const MethodInfo& i = e->info;
    EXPECT_EQ(i.name, e->name);
    EXPECT_FALSE(i.family.empty()) << e->name;
    EXPECT_FALSE(i.description.empty()) << e->name;
    EXPECT_FALSE(i.source.empty()) << e->name;
    if (i.family == "classical") {
      EXPECT_FALSE(i.lie_group) << e->name;
      EXPECT_EQ(i.exps_per_step, 0) << e->name;
    }
  }
  const auto& reg = MethodRegistry::instance();
  EXPECT_EQ(reg.get("rkmk4_co", "method").info.exps_per_step, 4);
  EXPECT_EQ(reg.get("rkmk4", "method").info.exps_per_step, 4);
  EXPECT_EQ(reg.get("rkmk54", "method").info.stages, 6);  // FSAL
  EXPECT_EQ(reg.get("dopri54", "method").info.stages, 6);
  EXPECT_EQ(reg.get("dopri54_proj", "method").info.stages, 7);  // projection breaks FSAL
  // the order reported by a configured stepper follows the dexpinv truncation: min(p, q + 2)
  ZeroField any(1);
  EXPECT_EQ(make_stepper("rkmk4", Config::from_pairs({{"dexpinv", "1"}}), any)->info().order, 3);
  EXPECT_EQ(make_stepper("rkmk5", Config::from_pairs({{"dexpinv", "2"}}), any)->info().order, 4);
  EXPECT_EQ(make_stepper("rkmk4_trunc", Config::from_pairs({}), any)->info().order, 4);
}
