#include "methods/classical.hpp"

#include <algorithm>

namespace lie {

namespace {

constexpr std::size_t kOmpMin = 4096;  // array entries before an OpenMP team is used

const bool kClassicalKeys = declare_options({
    {"tableau.project", OptionType::Bool, "false",
     "classical_user: project onto the manifold after every step (like rk4_proj)", {}, "tableau"},
    {"tableau.<name>.project", OptionType::Bool, "",
     "project onto the manifold after every step (classical_user with the user tableau of that name; default "
     "false)", {}, "tableau"},
});

}  // namespace

ClassicalRkStepper::ClassicalRkStepper(MethodInfo info, ButcherTable table, bool project)
    : info_(std::move(info)), table_(std::move(table)), project_(project) {
  table_.validate();
  reuse_last_ = table_.fsal() && !project_;
  double w[kMaxStages];
  dense_order_ = dense_weights(table_, 0.5, w);
  if (table_.has_embedded())
    for (int j = 0; j < table_.stages; ++j) db_.push_back(table_.b[j] - table_.bhat[j]);
}

void ClassicalRkStepper::bind(Model& model, par::Context& ctx) {
  model_ = &model;
  ctx_ = &ctx;
  ns_ = model.space().state_size();
  k_.assign(static_cast<std::size_t>(table_.stages), std::vector<double>(ns_, 0.0));
  ystage_.assign(ns_, 0.0);
  err_.assign(table_.has_embedded() ? ns_ : 0, 0.0);
  f0_valid_ = false;
}

void ClassicalRkStepper::combine(const double* base, const double* w, int count, double h,
                                 double* out) const {
  // out_i = base_i + sum_j (h w_j) k_j,i with j ascending and zero weights skipped (the same
  // rounding as accumulating stage by stage), in one pass; base may be out.
  double c[kMaxStages];
  const double* k[kMaxStages];
  int m = 0;
  for (int j = 0; j < count; ++j) {
    const double cj = h * w[j];
    if (cj == 0.0) continue;
    c[m] = cj;
    k[m] = k_[static_cast<std::size_t>(j)].data();
    ++m;
  }
  const std::size_t n = ns_;
#pragma omp parallel for schedule(static) if (n >= kOmpMin)
  for (std::size_t i = 0; i < n; ++i) {
    double acc = base ? base[i] : 0.0;
    for (int j = 0; j < m; ++j) acc += c[j] * k[j][i];
    out[i] = acc;
  }
}

void ClassicalRkStepper::copy_state(const double* src, double* dst) const {
#pragma omp parallel for simd schedule(static) if (ns_ >= kOmpMin)
  for (std::size_t i = 0; i < ns_; ++i) dst[i] = src[i];
}

void ClassicalRkStepper::stages(double t, double h, const double* y) {
  // k_1 = F(y_n) is known already after an accepted FSAL step or a rejected trial step.
  if (!f0_valid_) {
    model_->ambient_field(t, y, k_[0].data());
    ++counters_.rhs;
    f0_valid_ = true;
  }
  const int s = table_.stages;
  for (int i = 1; i < s; ++i) {
    combine(y, &table_.A[static_cast<std::size_t>(i * s)], i, h, ystage_.data());  // row i of A, j < i
    model_->ambient_field(t + table_.c[static_cast<std::size_t>(i)] * h, ystage_.data(),
                          k_[static_cast<std::size_t>(i)].data());
    ++counters_.rhs;
  }
  // FSAL: a_sj = b_j, so ystage_ holds y_{n+1} and k_s = F(y_{n+1}).
}

void ClassicalRkStepper::step(double t, double h, double* y) {
  stages(t, h, y);
  if (reuse_last_) {
    copy_state(ystage_.data(), y);
    std::swap(k_[0], k_.back());  // F(y_{n+1}) is k_1 of the next step
    f0_valid_ = true;
  } else {
    combine(y, table_.b.data(), table_.stages, h, y);
    if (project_) model_->space().project(y);
    f0_valid_ = false;
  }
  ++counters_.steps;
}

double ClassicalRkStepper::try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) {
  if (!table_.has_embedded()) return Stepper::try_step(t, h, y, y_new, norm);
  stages(t, h, y);
  if (reuse_last_) {
    copy_state(ystage_.data(), y_new);  // k_s = F(y_new) stays until accept()
  } else {
    combine(y, table_.b.data(), table_.stages, h, y_new);
  }
  combine(nullptr, db_.data(), table_.stages, h, err_.data());
  if (project_) model_->space().project(y_new);
  // k_1 = F(y) stays valid: a rejected step restarts from the same y.
  return norm(err_.data(), y_new, ns_, *ctx_);
}

bool ClassicalRkStepper::dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n) {
  if (!dense_order_) return Stepper::dense_output(t, h, theta, y, out, n);
  double w[kMaxStages];
  dense_weights(table_, theta, w);
  combine(y, w, table_.stages, h, out);  // k_1..k_s of the accepted trial step
  if (project_) model_->space().project(out);
  return false;
}

void ClassicalRkStepper::accept() {
  if (reuse_last_) {
    std::swap(k_[0], k_.back());
    f0_valid_ = true;
  } else {
    f0_valid_ = false;
  }
  ++counters_.steps;
}

// ---------------------------------------------------------------- registration
MethodInfo classical_info(const std::string& name, const ButcherTable& t, bool project, const std::string& desc,
                          const std::string& source) {
  MethodInfo m;
  m.name = name;
  m.family = "classical";
  m.order = t.order;
  m.embedded_order = t.has_embedded() ? t.embedded_order : 0;
  m.stages = t.fsal() && !project ? t.stages - 1 : t.stages;
  m.exps_per_step = 0;
  m.is_explicit = true;
  m.lie_group = false;
  m.description = desc + (project ? ", projected onto the manifold after every step" : ", no projection");
  m.source = source;
  return m;
}

namespace {

MethodEntry classical_entry(const std::string& name, const std::string& table, bool embedded, bool project,
                            const std::string& desc, const std::string& source) {
  ButcherTable used = butcher_table(table);
  record_method_table(name, table);
  if (!embedded) {
    used.bhat.clear();
    used.embedded_order = 0;
  }
  const MethodInfo info = classical_info(name, used, project, desc, source);
  return {name, info,
          [info, used, project](const MethodOptions&) { return std::make_unique<ClassicalRkStepper>(info, used, project); }};
}

MethodEntry classical_user_entry() {
  MethodInfo info;
  info.name = "classical_user";
  info.family = "classical";
  info.lie_group = false;
  info.description =
      "classical explicit RK from a user tableau (keys tableau.*; order computed from the order conditions, "
      "`liebench tableau FILE.cfg`); tableau.project = true projects after every step";
  info.source = "user";
  return {"classical_user", info,
          [](const MethodOptions& o) {
            const auto& opt = std::any_cast<const ClassicalUserOptions&>(o);
            const ButcherTable& t = opt.table;
            const bool project = opt.project;
            const MethodInfo m = classical_info("classical_user", t, project, "classical RK, user tableau '" + t.name + "'",
                                                "user tableau");
            return std::make_unique<ClassicalRkStepper>(m, t, project);
          },
          // <edge>
          [](const Config& cfg) {
            return MethodOptions(ClassicalUserOptions{butcher_table_from_config(cfg),
                                                      cfg.get_bool(user_tableau_key(cfg, "project"), false)});
          }
          // </edge>
  };
}

}  // namespace

LIEBENCH_REGISTER(MethodEntry, classical_entry("rk2", "heun2", false, false, "Heun's method on the embedding space",
                                               "[L] Example 3"))
LIEBENCH_REGISTER(MethodEntry, classical_entry("rk2_proj", "heun2", false, true, "Heun's method on the embedding space",
                                               "[L] Example 3"))
LIEBENCH_REGISTER(MethodEntry, classical_entry("rk4", "rk4", false, false, "classical RK4 on the embedding space",
                                               "[P] 5.3, [L] Example 3"))
LIEBENCH_REGISTER(MethodEntry, classical_entry("rk4_proj", "rk4", false, true, "classical RK4 on the embedding space",
                                               "[P] 5.3, [L] Example 3"))
LIEBENCH_REGISTER(MethodEntry, classical_entry("dopri54", "dopri5", true, false,
                                               "Dormand-Prince 5(4) (ode45) on the embedding space, FSAL",
                                               "[P] 5.3 (ODE45), Dormand & Prince 1980"))
LIEBENCH_REGISTER(MethodEntry, classical_entry("dopri54_proj", "dopri5", true, true,
                                               "Dormand-Prince 5(4) (ode45) on the embedding space",
                                               "[P] 5.3 (ODE45), [L] Example 3"))
LIEBENCH_REGISTER(MethodEntry, classical_user_entry())

}  // namespace lie
