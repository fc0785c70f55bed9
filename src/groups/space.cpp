#include "groups/space.hpp"

#include "groups/rigid_body_batch.hpp"
#include "groups/se3_ts2_batch.hpp"

#include <sstream>
#include <stdexcept>

#include "parallel/loops.hpp"

namespace lie {

namespace {

template <class F>
FactorInfo make_info(FactorKind k) {
  return {k, F::name, F::group, F::manifold, F::alg_dim, F::state_dim};
}

// Calls fn.template operator()<FactorType>() for the factor type of `kind`.
template <class Fn>
void dispatch(FactorKind kind, Fn&& fn) {
  switch (kind) {
#define LIEBENCH_CASE(id, type)          \
  case FactorKind::id:                   \
    fn.template operator()<type>();      \
    return;
    LIEBENCH_FACTORS(LIEBENCH_CASE)
#undef LIEBENCH_CASE
  }
  throw std::logic_error("unknown factor kind");
}

// Runs body(i) for the components of one block, on an OpenMP team when the block is large
// and there is more than one thread (no parallel region otherwise: par::for_each_index).
template <class Body>
void for_components(std::size_t n, Body&& body) {
  par::for_each_index(n, par::use_threads(n, Space::kOmpMinComponents), body);
}

}  // namespace

const std::vector<FactorInfo>& all_factors() {
  static const std::vector<FactorInfo> infos = {
#define LIEBENCH_INFO(id, type) make_info<type>(FactorKind::id),
      LIEBENCH_FACTORS(LIEBENCH_INFO)
#undef LIEBENCH_INFO
  };
  return infos;
}

const FactorInfo& factor_info(FactorKind kind) { return all_factors().at(static_cast<std::size_t>(kind)); }

std::size_t Space::add(FactorKind kind, std::size_t count, std::string label) {
  const FactorInfo& info = factor_info(kind);
  Block b;
  b.kind = kind;
  b.count = count;
  b.state_offset = state_size_;
  b.alg_offset = alg_size_;
  b.state_dim = info.state_dim;
  b.alg_dim = info.alg_dim;
  b.label = std::move(label);
  state_size_ += count * static_cast<std::size_t>(info.state_dim);
  alg_size_ += count * static_cast<std::size_t>(info.alg_dim);
  blocks_.push_back(std::move(b));
  return blocks_.size() - 1;
}

std::string Space::describe() const {
  std::ostringstream os;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (i) os << " x ";
    const FactorInfo& f = factor_info(blocks_[i].kind);
    os << "(" << f.group << " on " << f.manifold << ")^" << blocks_[i].count;
  }
  return os.str();
}

void Space::exp_act(const double* xi, const double* y, double* out) const {
  for (const Block& b : blocks_) {
    if (b.kind == FactorKind::SE3OnTS2) {  // across vector lanes, the same bits (se3_ts2_batch.hpp)
      se3_ts2::exp_act_batch(xi + b.alg_offset, y + b.state_offset, out + b.state_offset, b.count,
                             par::use_threads(b.count, kOmpMinComponents));
      continue;
    }
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) {
        F::exp_act(xi + b.alg_offset + i * F::alg_dim, y + b.state_offset + i * F::state_dim,
                   out + b.state_offset + i * F::state_dim);
      });
    });
  }
}

void Space::generator(const double* xi, const double* y, double* out) const {
  for (const Block& b : blocks_) {
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) {
        F::generator(xi + b.alg_offset + i * F::alg_dim, y + b.state_offset + i * F::state_dim,
                     out + b.state_offset + i * F::state_dim);
      });
    });
  }
}

void Space::bracket(const double* a, const double* c, double* out) const {
  for (const Block& b : blocks_) {
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) {
        const std::size_t o = b.alg_offset + i * F::alg_dim;
        F::bracket(a + o, c + o, out + o);
      });
    });
  }
}

void Space::dexpinv(const double* u, const double* v, double* out, int terms) const {
  for (const Block& b : blocks_) {
    if (b.kind == FactorKind::SE3OnTS2 && terms == kExactDexpinv) {
      se3_ts2::dexpinv_batch(u + b.alg_offset, v + b.alg_offset, out + b.alg_offset, b.count,
                             par::use_threads(b.count, kOmpMinComponents));
      continue;
    }
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) {
        const std::size_t o = b.alg_offset + i * F::alg_dim;
        if (terms == kExactDexpinv)
          F::dexpinv(u + o, v + o, out + o);
        else
          dexpinv_series<F::alg_dim>(u + o, v + o, out + o, terms,
                                     [](const double* x, const double* y, double* z) { F::bracket(x, y, z); });
      });
    });
  }
}

void Space::dexp(const double* u, const double* v, double* out) const {
  for (const Block& b : blocks_) {
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) {
        const std::size_t o = b.alg_offset + i * F::alg_dim;
        F::dexp(u + o, v + o, out + o);
      });
    });
  }
}

namespace {
// Calls fn.template operator()<C>() for the map c other than exp.
template <class Fn>
void dispatch_chart(Coordinates c, Fn&& fn) {
  if (c == Coordinates::Cayley)
    fn.template operator()<Coordinates::Cayley>();
  else if (c == Coordinates::SecondKind)
    fn.template operator()<Coordinates::SecondKind>();
  else
    throw std::logic_error("dispatch_chart: exp has its own kernels");
}
}  // namespace

void Space::chart_act(Coordinates c, const double* xi, const double* y, double* out) const {
  if (c == Coordinates::Exp) return exp_act(xi, y, out);
  dispatch_chart(c, [&]<Coordinates C>() {
    for (const Block& b : blocks_) {
      dispatch(b.kind, [&]<class F>() {
        for_components(b.count, [&](std::size_t i) {
          F::act(F::template chart<C>(xi + b.alg_offset + i * F::alg_dim), y + b.state_offset + i * F::state_dim,
                 out + b.state_offset + i * F::state_dim);
        });
      });
    }
  });
}

void Space::dchartinv(Coordinates c, const double* u, const double* v, double* out, int terms) const {
  if (c == Coordinates::Exp) return dexpinv(u, v, out, terms);
  if (terms != kExactDexpinv)
    throw std::logic_error("Space::dchartinv: the Bernoulli series (terms) is exp's; other maps are exact only");
  dispatch_chart(c, [&]<Coordinates C>() {
    for (const Block& b : blocks_) {
      dispatch(b.kind, [&]<class F>() {
        for_components(b.count, [&](std::size_t i) {
          const std::size_t o = b.alg_offset + i * F::alg_dim;
          F::template dchartinv<C>(u + o, v + o, out + o);
        });
      });
    }
  });
}

void Space::rkmk_stage(const RkmkStage& s) const {
  for (const Block& b : blocks_) {
    if (b.kind == FactorKind::SE3OnTS2 && s.terms == kExactDexpinv) {
      // the chain's links across vector lanes, the same bits (se3_ts2_batch.hpp)
      se3_ts2::rkmk_stage_batch(s, b.alg_offset, b.state_offset, b.count,
                                par::use_threads(b.count, kOmpMinComponents));
      continue;
    }
    if (b.kind == FactorKind::RigidBodyLeftTriv && s.terms == kExactDexpinv) {
      // rigid bodies: dexpinv across vector lanes, the same bits (rigid_body_batch.hpp)
      rigid_body::rkmk_stage_batch(s, b.alg_offset, b.state_offset, b.count,
                                   par::use_threads(b.count, kOmpMinComponents));
      continue;
    }
    dispatch(b.kind, [&]<class F>() {
      constexpr int A = F::alg_dim;
      for_components(b.count, [&](std::size_t i) {
        const std::size_t o = b.alg_offset + i * A, so = b.state_offset + i * F::state_dim;
        double k[A];
        if (s.first)
          for (int a = 0; a < A; ++a) k[a] = s.f[o + a];
        else if (s.terms == kExactDexpinv)
          F::dexpinv(s.u + o, s.f + o, k);
        else
          dexpinv_series<A>(s.u + o, s.f + o, k, s.terms,
                            [](const double* x, const double* y, double* z) { F::bracket(x, y, z); });
        double* sg = s.sigma + o;
        if (s.first) {
          for (int a = 0; a < A; ++a) sg[a] = s.ck != 0.0 ? 0.0 + s.ck * k[a] : 0.0;
        } else if (s.ck != 0.0) {
          for (int a = 0; a < A; ++a) sg[a] += s.ck * k[a];
        }
        if (s.last) {
          F::exp_act(sg, s.y + so, s.y_out + so);
        } else {
          double* u = s.u + o;
          for (int a = 0; a < A; ++a) u[a] = s.cu != 0.0 ? 0.0 + s.cu * k[a] : 0.0;
          F::exp_act(u, s.y + so, s.y_out + so);
        }
      });
    });
  }
}

void Space::project(double* y) const {
  for (const Block& b : blocks_) {
    dispatch(b.kind, [&]<class F>() {
      for_components(b.count, [&](std::size_t i) { F::project(y + b.state_offset + i * F::state_dim); });
    });
  }
}

}  // namespace lie
