// The product homogeneous space (src/groups/space.hpp): a product of blocks gives exactly
// the per-component kernels, the OpenMP path (>= 256 components per block) is bitwise
// identical for 1 and 2 threads, splitting the flat arrays into contiguous pieces (as ranks
// do) changes nothing, and (SE(3))^N acting on (TS^2)^N ([P] 5.1) keeps |q_i| and q_i . w_i.
#include <omp.h>

#include <vector>

#include "factor_sampling.hpp"
#include "groups/space.hpp"
#include "groups_testing.hpp"

using namespace lie;
using namespace lie::testing;

namespace {

template <class Fn>
void with_factor(FactorKind kind, Fn&& fn) {
  switch (kind) {
#define LIEBENCH_TEST_CASE(id, type) \
  case FactorKind::id:               \
    fn.template operator()<type>();  \
    return;
    LIEBENCH_FACTORS(LIEBENCH_TEST_CASE)
#undef LIEBENCH_TEST_CASE
  }
  FAIL() << "unknown factor kind";
}

struct Arrays {
  std::vector<double> y, xi, v;
};

/// Random state on the manifold and random algebra elements (|rotation parts| < pi).
Arrays random_arrays(const Space& sp, Rng& rng) {
  Arrays a{std::vector<double>(sp.state_size()), std::vector<double>(sp.alg_size()), std::vector<double>(sp.alg_size())};
  for (const Block& b : sp.blocks()) {
    with_factor(b.kind, [&]<class F>() {
      for (std::size_t i = 0; i < b.count; ++i) {
        const State<F> y = random_state<F>(rng);
        std::copy(y.data(), y.data() + F::state_dim, a.y.begin() + static_cast<long>(b.state_offset + i * F::state_dim));
        for (int k = 0; k < F::alg_dim; ++k) {
          a.xi[b.alg_offset + i * F::alg_dim + static_cast<std::size_t>(k)] = 0.8 * rng.normal();
          a.v[b.alg_offset + i * F::alg_dim + static_cast<std::size_t>(k)] = rng.normal();
        }
      }
    });
  }
  return a;
}

/// Every Space operation on (xi, y, v), concatenated: exp_act, generator, bracket, dexp,
/// exact dexpinv, dexpinv with q = 0..6 commutators, project.
std::vector<double> all_ops(const Space& sp, const Arrays& a) {
  std::vector<double> out, s(sp.state_size()), g(sp.alg_size());
  auto append = [&](const std::vector<double>& x) { out.insert(out.end(), x.begin(), x.end()); };
  sp.exp_act(a.xi.data(), a.y.data(), s.data());
  append(s);
  std::vector<double> inplace = a.y;
  sp.exp_act(a.xi.data(), inplace.data(), inplace.data());
  append(inplace);
  sp.generator(a.xi.data(), a.y.data(), s.data());
  append(s);
  sp.bracket(a.xi.data(), a.v.data(), g.data());
  append(g);
  sp.dexp(a.xi.data(), a.v.data(), g.data());
  append(g);
  sp.dexpinv(a.xi.data(), a.v.data(), g.data());
  append(g);
  for (int q = 0; q <= 6; ++q) {
    sp.dexpinv(a.xi.data(), a.v.data(), g.data(), q);
    append(g);
  }
  std::vector<double> p = a.y;
  for (double& x : p) x += 1e-7;
  sp.project(p.data());
  append(p);
  return out;
}

/// The same operations computed component by component with the factor kernels.
std::vector<double> all_ops_by_component(const Space& sp, const Arrays& a) {
  const std::size_t S = sp.state_size(), G = sp.alg_size();
  std::vector<double> ea(S), inplace = a.y, gen(S), br(G), de(G), di(G), p = a.y;
  std::vector<std::vector<double>> ser(7, std::vector<double>(G));
  for (double& x : p) x += 1e-7;
  for (const Block& b : sp.blocks()) {
    with_factor(b.kind, [&]<class F>() {
      for (std::size_t i = 0; i < b.count; ++i) {
        const std::size_t so = b.state_offset + i * F::state_dim, ao = b.alg_offset + i * F::alg_dim;
        F::exp_act(&a.xi[ao], &a.y[so], &ea[so]);
        F::exp_act(&a.xi[ao], &inplace[so], &inplace[so]);
        F::generator(&a.xi[ao], &a.y[so], &gen[so]);
        F::bracket(&a.xi[ao], &a.v[ao], &br[ao]);
        F::dexp(&a.xi[ao], &a.v[ao], &de[ao]);
        F::dexpinv(&a.xi[ao], &a.v[ao], &di[ao]);
        for (int q = 0; q <= 6; ++q)
          dexpinv_series<F::alg_dim>(&a.xi[ao], &a.v[ao], &ser[static_cast<std::size_t>(q)][ao], q,
                                     [](const double* x, const double* y, double* z) { F::bracket(x, y, z); });
        F::project(&p[so]);
      }
    });
  }
  std::vector<double> out;
  for (const auto* x : {&ea, &inplace, &gen, &br, &de, &di}) out.insert(out.end(), x->begin(), x->end());
  for (const auto& x : ser) out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), p.begin(), p.end());
  return out;
}

/// One block of every factor kind (3 components each) plus two blocks above the OpenMP
/// threshold.
Space mixed_space() {
  Space sp;
  for (const FactorInfo& f : all_factors()) sp.add(f.kind, 3, f.name);
  sp.add(FactorKind::SE3OnTS2, 300, "links");
  sp.add(FactorKind::TstarSO3LeftTriv, Space::kOmpMinComponents, "bodies");
  return sp;
}

class OmpThreads {
 public:
  explicit OmpThreads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

}  // namespace

TEST(GroupsSpace, LayoutOfBlocks) {
  Space sp;
  EXPECT_EQ(sp.add(FactorKind::SE3OnTS2, 5, "links"), 0u);
  EXPECT_EQ(sp.add(FactorKind::TstarSO3LeftTriv, 3, "bodies"), 1u);
  EXPECT_EQ(sp.add(FactorKind::SO3OnR3, 2), 2u);
  EXPECT_EQ(sp.state_size(), 5u * 6 + 3 * 12 + 2 * 3);
  EXPECT_EQ(sp.alg_size(), 5u * 6 + 3 * 6 + 2 * 3);
  ASSERT_EQ(sp.blocks().size(), 3u);
  EXPECT_EQ(sp.blocks()[1].state_offset, 30u);
  EXPECT_EQ(sp.blocks()[1].alg_offset, 30u);
  EXPECT_EQ(sp.blocks()[2].state_offset, 66u);
  EXPECT_EQ(sp.blocks()[2].alg_offset, 48u);
  EXPECT_EQ(sp.blocks()[0].label, "links");
  EXPECT_NE(sp.describe().find("SE(3) on TS^2"), std::string::npos) << sp.describe();
  EXPECT_NE(sp.describe().find(")^5"), std::string::npos) << sp.describe();
  // the info table follows the X-macro
  for (const FactorInfo& f : all_factors()) {
    with_factor(f.kind, [&]<class F>() {
      EXPECT_EQ(f.state_dim, F::state_dim);
      EXPECT_EQ(f.alg_dim, F::alg_dim);
      EXPECT_STREQ(f.name, F::name);
    });
  }
}

TEST(GroupsSpace, ProductOfBlocksEqualsThePerComponentKernels) {
  Rng rng(601);
  const Space sp = mixed_space();
  for (int rep = 0; rep < 3; ++rep) {
    const Arrays a = random_arrays(sp, rng);
    const std::vector<double> whole = all_ops(sp, a), parts = all_ops_by_component(sp, a);
    ASSERT_EQ(whole.size(), parts.size());
    EXPECT_TRUE(whole == parts) << "Space differs from the component kernels";
  }
}

TEST(GroupsSpace, OpenMpResultsAreBitwiseIdenticalForOneAndTwoThreads) {
  Rng rng(602);
  const Space sp = mixed_space();
  const Arrays a = random_arrays(sp, rng);
  std::vector<double> one, two;
  {
    OmpThreads t(1);
    one = all_ops(sp, a);
  }
  {
    OmpThreads t(2);
    ASSERT_EQ(omp_get_max_threads(), 2);
    two = all_ops(sp, a);
  }
  ASSERT_EQ(one.size(), two.size());
  EXPECT_TRUE(one == two) << "OpenMP changed the results";
}

TEST(GroupsSpace, SE3PowerActingOnTS2PowerIsComponentwiseAndSplittable) {
  // [P] 5.1: psi((A_i, a_i), (q_i, w_i)) = (A_i q_i, A_i w_i + a_i x A_i q_i) on one flat array
  // of 6N doubles; generator (u_i x q_i, u_i x w_i + v_i x q_i).
  Rng rng(603);
  const std::size_t N = 1001;
  Space sp;
  sp.add(FactorKind::SE3OnTS2, N, "links");
  ASSERT_EQ(sp.state_size(), 6 * N);
  ASSERT_EQ(sp.alg_size(), 6 * N);
  const Arrays a = random_arrays(sp, rng);
  std::vector<double> y1(6 * N), gen(6 * N);
  sp.exp_act(a.xi.data(), a.y.data(), y1.data());
  sp.generator(a.xi.data(), a.y.data(), gen.data());
  Worst formula("(SE3)^N on (TS2)^N: |exp_act - [P] 5.1 formula|"), inv("(SE3)^N on (TS2)^N: | |q| - 1 |, |q . w| after exp_act"),
      hom("(SE3)^N on (TS2)^N: |psi(g, psi(h, m)) - psi(gh, m)|");
  std::vector<se3::Element> h(N);
  std::vector<double> y_h(6 * N), y_gh(6 * N), y_g_h(6 * N);
  for (std::size_t i = 0; i < N; ++i) {
    const Vec6 xi = Eigen::Map<const Vec6>(&a.xi[6 * i]);
    const se3::Element g = se3::exp(xi);
    const Vec3 q = Eigen::Map<const Vec3>(&a.y[6 * i]), w = Eigen::Map<const Vec3>(&a.y[6 * i + 3]);
    const Vec3 Aq = g.R * q, Aw = g.R * w + so3::hat(g.r) * g.R * q;
    const Vec3 q1 = Eigen::Map<const Vec3>(&y1[6 * i]), w1 = Eigen::Map<const Vec3>(&y1[6 * i + 3]);
    EXPECT_LE(formula(std::max(max_abs_diff(q1, Aq), max_abs_diff(w1, Aw)) / (1 + w.norm())), 4e-15);
    EXPECT_LE(inv(std::max(std::fabs(q1.norm() - 1), std::fabs(q1.dot(w1)) / (1 + w.norm()))), 2e-15);
    const Vec3 u = se3::rot(xi), v = se3::trans(xi);
    EXPECT_EQ(Eigen::Map<const Vec3>(&gen[6 * i]), Vec3(u.cross(q)));
    EXPECT_LE(max_abs_diff(Eigen::Map<const Vec3>(&gen[6 * i + 3]), Vec3(u.cross(w) + v.cross(q))), 1e-15 * (1 + w.norm()));
    // the direct product structure with explicit elements of (SE(3))^N
    h[i] = se3::exp(Vec6(Eigen::Map<const Vec6>(&a.v[6 * i])));
    factors::SE3OnTS2::act(h[i], &a.y[6 * i], &y_h[6 * i]);
    factors::SE3OnTS2::act(g, &y_h[6 * i], &y_g_h[6 * i]);
    factors::SE3OnTS2::act(se3::compose(g, h[i]), &a.y[6 * i], &y_gh[6 * i]);
    EXPECT_LE(hom(max_abs_diff(Eigen::Map<const Vec6>(&y_g_h[6 * i]), Eigen::Map<const Vec6>(&y_gh[6 * i])) / (1 + w.norm())), 1e-14);
  }
  // a rank that owns components [b, e) runs the same kernels on its slice: same bits
  std::vector<double> pieces(6 * N);
  const std::size_t cuts[] = {0, 250, 251, 700, N};
  for (std::size_t k = 0; k + 1 < std::size(cuts); ++k) {
    Space local;
    local.add(FactorKind::SE3OnTS2, cuts[k + 1] - cuts[k], "links");
    local.exp_act(&a.xi[6 * cuts[k]], &a.y[6 * cuts[k]], &pieces[6 * cuts[k]]);
  }
  EXPECT_TRUE(pieces == y1);
}
