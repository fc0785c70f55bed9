#include "methods/rkmk.hpp"

#include <algorithm>
#include <cstring>

#include "core/quote.hpp"
#include "parallel/loops.hpp"

namespace lie {

namespace {

constexpr std::size_t kOmpMin = 4096;  // algebra entries before an OpenMP team is used

const bool kRkmkKeys = declare_options({
    {"dexpinv", OptionType::String, "exact",
     "dexpinv in RKMK methods: 'exact' (closed form of each group) or the number q of commutators of the "
     "Bernoulli series [P] eq. (8)",
     {}, "method"},
    {"coordinates", OptionType::Choice, "exp",
     "coordinate map of RKMK methods: exp (default), cayley (Cayley map, exact dcayinv; Iserles et al. 2000 "
     "sec. 8.3) or second_kind (canonical coordinates of the second kind, [P] 2.3; Owren & Marthinsen 2001); "
     "the other maps need dexpinv = exact",
     {"exp", "cayley", "second_kind"}, "method"},
});

// <edge> parse: key dexpinv
int dexpinv_terms_from(const Config& cfg, int fallback) {
  const std::string v = cfg.get_string("dexpinv", "exact");
  if (v == "exact") return fallback;
  const long q = parse_int("dexpinv", v);
  if (q < 0 || q > kMaxDexpinvTerms)
    throw UsageError("key 'dexpinv' has value " + quote(v) + "; allowed: exact or an integer 0.." +
                     std::to_string(kMaxDexpinvTerms));
  return static_cast<int>(q);
}

// <edge> parse: key coordinates (with the dexpinv terms already parsed: the Bernoulli series of
// [P] eq. (8) is exp's, the other maps have their exact dphiinv only)
Coordinates coordinates_from(const Config& cfg, int terms, const std::string& method) {
  const std::string v = cfg.get_string("coordinates", "exp");
  Coordinates c = Coordinates::Exp;
  if (!coordinates_from_name(v, c))
    throw UsageError("key 'coordinates' has value " + quote(v) + "; allowed: exp, cayley, second_kind");
  if (c != Coordinates::Exp && terms != kExactDexpinv)
    throw UsageError("key 'coordinates' = " + quote(v) + " with method " + quote(method) +
                     " needs the exact inverse differential, but dexpinv is truncated after q = " +
                     std::to_string(terms) + " commutators (a series of exp's); set dexpinv = exact" +
                     (cfg.was_set("dexpinv") ? std::string() : " (or use rkmk4 for rkmk4_trunc)") +
                     ", or coordinates = exp");
  return c;
}
// </edge>

}  // namespace

RkmkStepper::RkmkStepper(MethodInfo info, ButcherTable table, int dexpinv_terms, Coordinates coordinates)
    : info_(std::move(info)), table_(std::move(table)), terms_(dexpinv_terms), coords_(coordinates) {
  if (coords_ != Coordinates::Exp && terms_ != kExactDexpinv)
    throw std::logic_error("RkmkStepper: a truncated dexpinv with another coordinate map (refused at parse)");
  table_.validate();
  fsal_ = table_.fsal();
  if (table_.has_embedded())
    for (int j = 0; j < table_.stages; ++j) db_.push_back(table_.b[j] - table_.bhat[j]);
  double w[kMaxStages];
  dense_order_ = dense_weights(table_, 0.5, w);
  fusable_ = !fsal_ && !table_.has_embedded() && coords_ == Coordinates::Exp;
  for (int i = 0; i < table_.stages; ++i)
    for (int j = 0; j + 1 < i; ++j) fusable_ = fusable_ && table_.a(i, j) == 0.0;
  fused_ = fusable_;
}

void RkmkStepper::bind(Model& model, par::Context& ctx) {
  model_ = &model;
  ctx_ = &ctx;
  na_ = model.space().alg_size();
  ns_ = model.space().state_size();
  threaded_ = par::use_threads(na_, kOmpMin);
  // Fused: y, ystage_, u_, f_ (k_1 = f(y_n) or f at the stage point), sigma_. Where the model
  // evaluates f in place (ModelCapabilities) f overwrites the stage point, which the stage pass
  // reads no more (Space::rkmk_stage reads a component's f before it writes its next stage point):
  // one array fewer (48 bytes per chain link, issue 27), the same operations.
  k_.assign(fused_ ? 0 : static_cast<std::size_t>(table_.stages), std::vector<double>(na_));
  u_.assign(na_, 0.0);
  const bool f_in_stage = fused_ && na_ == ns_ && model.capabilities().vector_field_in_place;
  f_.assign(f_in_stage ? 0 : na_, 0.0);
  sigma_.assign(fsal_ && !table_.has_embedded() ? 0 : na_, 0.0);
  err_.assign(table_.has_embedded() ? na_ : 0, 0.0);
  ystage_.assign(ns_, 0.0);
  fused_f_ = f_in_stage ? ystage_.data() : f_.data();
  f0_valid_ = false;
}

namespace {
void parallel_copy(const double* src, double* dst, std::size_t n, bool threaded) {
  par::for_each_index(n, threaded, [&](std::size_t i) { dst[i] = src[i]; });
}
}  // namespace

void RkmkStepper::combine(const double* w, int count, double h, double* out) const {
  // out_i = sum_j (h w_j) k_j,i with j ascending and zero weights skipped: the same rounding
  // as accumulating stage by stage, in one pass over memory.
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
  par::for_each_index(na_, threaded_, [&](std::size_t i) {
    double acc = 0.0;
    for (int j = 0; j < m; ++j) acc += c[j] * k[j][i];
    out[i] = acc;
  });
}

void RkmkStepper::fused_step(double t, double h, double* y) {
  // The stages of [P] eq. (6) for a sub-diagonal A: u_{i+1} = h a_{i+1,i} k_i and
  // sigma = h sum_i b_i k_i are updated in the pass that computes k_i, and the next stage
  // point (or y_{n+1}) is computed in the same pass (Space::rkmk_stage).
  const Space& sp = model_->space();
  const int s = table_.stages;
  if (!f0_valid_) {
    model_->vector_field(t, y, fused_f_);
    ++counters_.rhs;
  }
  for (int i = 0; i < s; ++i) {
    if (i > 0) {
      model_->vector_field(t + table_.c[static_cast<std::size_t>(i)] * h, ystage_.data(), fused_f_);
      ++counters_.rhs;
      ++counters_.dexpinv;
      if (terms_ > 0) counters_.brackets += static_cast<std::uint64_t>(terms_);
    }
    Space::RkmkStage st;
    st.f = fused_f_;
    st.u = u_.data();
    st.sigma = sigma_.data();
    st.y = y;
    st.first = i == 0;
    st.last = i + 1 == s;
    st.ck = h * table_.b[static_cast<std::size_t>(i)];
    st.cu = st.last ? 0.0 : h * table_.a(i + 1, i);
    st.y_out = st.last ? y : ystage_.data();
    st.terms = terms_;
    st.scratch_tiled = true;  // u_ and sigma_ are read by these passes only
    sp.rkmk_stage(st);
    ++counters_.exp;
  }
  f0_valid_ = false;
  ++counters_.steps;
}

void RkmkStepper::stages(double t, double h, const double* y) {
  const Space& sp = model_->space();
  const int s = table_.stages;
  // Stage 1: u = 0 and dexpinv_0 = identity, so k_1 = f(y_n). It is known already after an
  // accepted FSAL step or a rejected trial step from the same y_n.
  if (!f0_valid_) {
    model_->vector_field(t, y, k_[0].data());
    ++counters_.rhs;
    f0_valid_ = true;
  }
  for (int i = 1; i < s; ++i) {
    combine(&table_.A[static_cast<std::size_t>(i * s)], i, h, u_.data());  // row i of A, a_ij for j < i
    sp.chart_act(coords_, u_.data(), y, ystage_.data());
    ++counters_.exp;
    model_->vector_field(t + table_.c[static_cast<std::size_t>(i)] * h, ystage_.data(), f_.data());
    ++counters_.rhs;
    sp.dchartinv(coords_, u_.data(), f_.data(), k_[static_cast<std::size_t>(i)].data(), terms_);
    ++counters_.dexpinv;
    if (terms_ > 0) counters_.brackets += static_cast<std::uint64_t>(terms_);
  }
  // For FSAL tables the last stage has u_s = sigma: ystage_ = y_{n+1} and f_ = f(y_{n+1}).
}

void RkmkStepper::step(double t, double h, double* y) {
  if (fused_) {
    fused_step(t, h, y);
    return;
  }
  stages(t, h, y);
  if (fsal_) {
    parallel_copy(ystage_.data(), y, ns_, threaded_);
    std::swap(k_[0], f_);  // f(y_{n+1}) is k_1 of the next step
    f0_valid_ = true;
  } else {
    combine(table_.b.data(), table_.stages, h, sigma_.data());
    model_->space().chart_act(coords_, sigma_.data(), y, y);
    ++counters_.exp;
    f0_valid_ = false;
  }
  ++counters_.steps;
}

double RkmkStepper::try_step(double t, double h, const double* y, double* y_new, const ErrorNorm& norm) {
  if (!table_.has_embedded()) return Stepper::try_step(t, h, y, y_new, norm);
  stages(t, h, y);
  const double* sigma = sigma_.data();
  if (fsal_) {
    // u_s = sigma and ystage_ = y_new; f_ = f(y_new) stays until accept().
    parallel_copy(ystage_.data(), y_new, ns_, threaded_);
    sigma = u_.data();
  } else {
    combine(table_.b.data(), table_.stages, h, sigma_.data());
    model_->space().chart_act(coords_, sigma_.data(), y, y_new);
    ++counters_.exp;
  }
  combine(db_.data(), table_.stages, h, err_.data());
  // k_[0] still holds f(y): a rejected step restarts from the same y without re-evaluating.
  return norm(err_.data(), sigma, na_, *ctx_);
}

bool RkmkStepper::dense_output(double t, double h, double theta, const double* y, double* out, std::size_t n) {
  if (!dense_order_) return Stepper::dense_output(t, h, theta, y, out, n);
  double w[kMaxStages];
  dense_weights(table_, theta, w);
  dense_sigma_.resize(na_);
  combine(w, table_.stages, h, dense_sigma_.data());  // k_1..k_s of the accepted trial step
  model_->space().chart_act(coords_, dense_sigma_.data(), y, out);
  ++counters_.exp;
  return false;
}

void RkmkStepper::rebuild_cache(double t, const double* y) {
  // k_1 = f(y_n) as the uninterrupted run holds it (checkpoint restart; not counted again).
  model_->vector_field(t, y, fused_ ? fused_f_ : k_[0].data());
  f0_valid_ = true;
}

void RkmkStepper::accept() {
  if (fsal_) {
    std::swap(k_[0], f_);
    f0_valid_ = true;
  } else {
    f0_valid_ = false;
  }
  ++counters_.steps;
}

// ---------------------------------------------------------------- Casas-Owren
void CasasOwrenStepper::bind(Model& model, par::Context&) {
  model_ = &model;
  const std::size_t na = model.space().alg_size();
  for (auto* v : {&f1_, &f2_, &f3_, &f4_, &u_, &br_}) v->assign(na, 0.0);
  ys_.assign(model.space().state_size(), 0.0);
}

void CasasOwrenStepper::step(double t, double h, double* y) {
  const Space& sp = model_->space();
  const std::size_t na = u_.size();
  auto eval = [&](double tt, const double* state, std::vector<double>& out) {
    model_->vector_field(tt, state, out.data());
    for (double& v : out) v *= h;
    ++counters_.rhs;
  };
  eval(t, y, f1_);
  for (std::size_t i = 0; i < na; ++i) u_[i] = 0.5 * f1_[i];
  sp.exp_act(u_.data(), y, ys_.data());
  eval(t + 0.5 * h, ys_.data(), f2_);
  sp.bracket(f1_.data(), f2_.data(), br_.data());
  for (std::size_t i = 0; i < na; ++i) u_[i] = 0.5 * f2_[i] - 0.125 * br_[i];
  sp.exp_act(u_.data(), y, ys_.data());
  eval(t + 0.5 * h, ys_.data(), f3_);
  sp.exp_act(f3_.data(), y, ys_.data());
  eval(t + h, ys_.data(), f4_);
  sp.bracket(f1_.data(), f4_.data(), br_.data());
  for (std::size_t i = 0; i < na; ++i)
    u_[i] = (f1_[i] + 2.0 * f2_[i] + 2.0 * f3_[i] + f4_[i] - 0.5 * br_[i]) / 6.0;
  sp.exp_act(u_.data(), y, y);
  counters_.exp += 4;
  counters_.brackets += 2;
  ++counters_.steps;
}

// ---------------------------------------------------------------- registration
namespace {

MethodInfo rkmk_info(const std::string& name, const ButcherTable& t, int order, int emb, const std::string& desc,
                     const std::string& source) {
  MethodInfo m;
  m.name = name;
  m.family = "rkmk";
  m.order = order;
  m.embedded_order = emb;
  m.stages = t.fsal() ? t.stages - 1 : t.stages;
  m.exps_per_step = t.fsal() ? t.stages - 1 : t.stages;  // stage actions + final action
  m.description = desc;
  m.source = source;
  m.coordinate_maps = true;
  return m;
}

// With q commutators of the Bernoulli series RKMK keeps order min(p, q + 2): in every stage
// u = O(h) and v = f(y_n) + O(h) with u parallel to f(y_n) up to O(h^2), so the first neglected
// term ad_u^{q+1} v is O(h^{q+2}) and sigma is perturbed by O(h^{q+3}) per step (Munthe-Kaas,
// Appl. Numer. Math. 29 (1999): q >= p - 2 suffices; [P] 2.2).
int rkmk_order(int table_order, int terms) {
  return terms == kExactDexpinv ? table_order : std::min(table_order, terms + 2);
}

std::string dexpinv_note(int terms) {
  return terms == kExactDexpinv ? std::string() : "; dexpinv truncated after q = " + std::to_string(terms) + " commutators";
}

std::string coordinates_note(Coordinates c) {
  return c == Coordinates::Exp ? std::string() : std::string("; coordinates ") + coordinates_name(c);
}

MethodEntry rkmk_entry(const std::string& name, const std::string& table, int default_terms, bool embedded,
                       const std::string& desc, const std::string& source) {
  const ButcherTable& t = butcher_table(table);
  record_method_table(name, table);
  ButcherTable used = t;
  if (!embedded) {
    used.bhat.clear();
    used.embedded_order = 0;
  }
  MethodInfo info = rkmk_info(name, used, rkmk_order(t.order, default_terms),
                              embedded ? rkmk_order(t.embedded_order, default_terms) : 0, desc, source);
  return {name, info,
          [info, used, default_terms](const MethodOptions& o) {
            const RkmkOptions opt = options_as<RkmkOptions>(o, RkmkOptions{default_terms, {}});
            const int q = opt.dexpinv_terms;
            MethodInfo m = info;
            m.order = rkmk_order(used.order, q);
            if (used.has_embedded()) m.embedded_order = rkmk_order(used.embedded_order, q);
            if (q != default_terms) m.description += dexpinv_note(q);
            m.description += coordinates_note(opt.coordinates);
            return std::make_unique<RkmkStepper>(m, used, q, opt.coordinates);
          },
          // <edge>
          [default_terms, name](const Config& cfg) {
            const int q = dexpinv_terms_from(cfg, default_terms);
            return MethodOptions(RkmkOptions{q, {}, coordinates_from(cfg, q, name)});
          }
          // </edge>
  };
}

MethodEntry rkmk_user_entry() {
  MethodInfo info;
  info.name = "rkmk_user";
  info.family = "rkmk";
  info.description =
      "RKMK from a user tableau (keys tableau.*; order computed from the order conditions, "
      "`liebench tableau FILE.cfg`; keys dexpinv and coordinates apply)";
  info.source = "user";
  info.coordinate_maps = true;
  return {"rkmk_user", info,
          [](const MethodOptions& o) {
            const RkmkOptions& opt = std::any_cast<const RkmkOptions&>(o);
            const ButcherTable& t = opt.table;
            const int q = opt.dexpinv_terms;
            const MethodInfo m = rkmk_info("rkmk_user", t, rkmk_order(t.order, q),
                                           t.has_embedded() ? rkmk_order(t.embedded_order, q) : 0,
                                           "RKMK, user tableau '" + t.name + "'" + dexpinv_note(q) +
                                               coordinates_note(opt.coordinates),
                                           "user tableau");
            return std::make_unique<RkmkStepper>(m, t, q, opt.coordinates);
          },
          // <edge>
          [](const Config& cfg) {
            const int q = dexpinv_terms_from(cfg, kExactDexpinv);
            return MethodOptions(RkmkOptions{q, butcher_table_from_config(cfg), coordinates_from(cfg, q, "rkmk_user")});
          }
          // </edge>
  };
}

}  // namespace

LIEBENCH_REGISTER(MethodEntry, rkmk_entry("lie_euler", "euler", kExactDexpinv, false,
                                          "Lie-Euler: y_{n+1} = exp(h f(y_n)) y_n", "[P] 2.2"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("lie_euler_heun", "heun2", kExactDexpinv, false,
                                          "RKMK with Heun's 2nd-order tableau", "[P] 5.3"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("rkmk3", "kutta3", kExactDexpinv, false,
                                          "RKMK with Kutta's 3rd-order tableau", "[P] 5.3, [K] 3.2"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("rkmk4", "rk4", kExactDexpinv, false,
                                          "RKMK with the classical RK4 tableau, exact dexpinv", "[P] 2.2-2.3, [K] 3.1"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("rkmk4_trunc", "rk4", 2, false,
                                          "RKMK4 with dexpinv truncated after q = 2 commutators (key dexpinv)",
                                          "[P] eq. (8), [K] 2.7"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("rkmk5", "dopri5", kExactDexpinv, false,
                                          "RKMK with the 5th-order Dormand-Prince weights, constant step",
                                          "[P] 5.3 (Figs 8-11)"))
LIEBENCH_REGISTER(MethodEntry, rkmk_entry("rkmk54", "dopri5", kExactDexpinv, true,
                                          "RKMK(5,4) from Dormand-Prince, error ||sigma - sigma~|| in the algebra",
                                          "[P] 4.1, 5.3"))
LIEBENCH_REGISTER(MethodEntry, rkmk_user_entry())
LIEBENCH_REGISTER(MethodEntry, MethodEntry{"rkmk4_co",
                                           MethodInfo{"rkmk4_co", "rkmk", 4, 0, 4, 4, true, true,
                                                      "RKMK4 with two commutators (Casas & Owren 2003)",
                                                      "[P] 2.2 (explicit formula)", ""},
                                           [](const MethodOptions&) {
                                             return std::make_unique<CasasOwrenStepper>(
                                                 MethodRegistry::instance().find("rkmk4_co")->info);
                                           }})

}  // namespace lie
