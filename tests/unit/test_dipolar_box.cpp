// Dipolar model in a periodic box (issue 28, parallel/periodic_box.hpp): the box's wrap and
// minimum image; the cutoff path's minimum-image forces, fields and energy against a brute-force
// sum over all 27 images of every body (same cutoff), with open axes and with the energy shift;
// forces unchanged when bodies cross faces (translation, whole periods); a short dlm run in the
// box: energy bounded, momentum kept, the centre of mass moving with P/M (unwrapped state);
// the refusals of bad boxes.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"
#include "parallel/periodic_box.hpp"

using namespace lie;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

TEST(PeriodicBox, WrapImageAndMinimumImage) {
  PeriodicBox b;
  b.length = {2.0, 3.0, 5.0};
  b.periodic = {true, false, true};
  EXPECT_EQ(b.wrap(0, 0.5), 0.5);
  EXPECT_EQ(b.wrap(0, 2.5), 0.5);
  EXPECT_EQ(b.wrap(0, -1.5), 0.5);
  EXPECT_EQ(b.wrap(0, 2.0), 0.0);
  EXPECT_EQ(b.wrap(0, -1e-300), 0.0);  // x - L floor(x/L) rounds to L: folded to 0
  EXPECT_EQ(b.wrap(1, -7.25), -7.25);  // open axis
  EXPECT_EQ(b.image(0, -1.5), -1);
  EXPECT_EQ(b.image(2, 11.0), 2);
  EXPECT_EQ(b.image(1, 100.0), 0);
  EXPECT_EQ(b.minimum_image(0, 1.5), -0.5);
  EXPECT_EQ(b.minimum_image(2, -4.0), 1.0);
  EXPECT_EQ(b.minimum_image(1, 2.9), 2.9);
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-40.0, 40.0);
  for (int k = 0; k < 1000; ++k) {
    const double x = u(g), w = b.wrap(2, x);
    ASSERT_GE(w, 0.0);
    ASSERT_LT(w, 5.0);
    EXPECT_NEAR(w + 5.0 * static_cast<double>(b.image(2, x)), x, 1e-13);
    EXPECT_LE(std::fabs(b.minimum_image(2, x)), 2.5);
  }
}

DipolarParams box_params(std::array<bool, 3> periodic, bool shift) {
  DipolarParams p;
  p.n = 150;
  p.dipole = {0.3, 1.0, 0.8};
  p.dipole_strength = 1.3;
  p.epsilon = 0.9;
  p.sigma = 0.8;
  p.lj_attraction = true;
  p.cutoff = 2.9;
  p.cutoff_shift = shift;
  p.box.length = {7.0, 8.0, 6.0};
  p.box.periodic = periodic;
  return p;
}

// A configuration inside the box (bodies at least 0.85 apart in the minimum image, 1.2 beyond
// an open face) with random orientations and momenta; then each body moved by random whole
// periods (the state is unwrapped: the kernel must see through it).
std::vector<double> box_state(Dipolar& model, std::uint64_t seed, bool far_images = true) {
  const DipolarParams& p = model.params();
  std::vector<double> y(model.space().state_size());
  model.initial_state(y.data());  // orientations
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::uniform_int_distribution<int> shift(-3, 3);
  std::vector<std::array<double, 3>> q;
  while (q.size() < p.n) {
    std::array<double, 3> c;
    for (std::size_t a = 0; a < 3; ++a) c[a] = p.box.length[a] * u(g);
    bool ok = true;
    for (const auto& o : q) {
      double r2 = 0.0;
      for (int a = 0; a < 3; ++a) {
        const double d = p.box.minimum_image(a, c[static_cast<std::size_t>(a)] - o[static_cast<std::size_t>(a)]);
        r2 += d * d;
      }
      ok = ok && r2 > 0.85 * 0.85;
    }
    if (ok) q.push_back(c);
  }
  for (std::size_t i = 0; i < p.n; ++i) {
    double* s = &y[18 * i];
    for (std::size_t a = 0; a < 3; ++a)
      s[a] = q[i][a] + (far_images && p.box.periodic[a] ? p.box.length[a] * shift(g) : 0.0);
    for (int k = 0; k < 3; ++k) s[3 + k] = 0.3 * n01(g), s[15 + k] = 0.3 * n01(g);
  }
  return y;
}

// Component a of body j's dipole mu = Q mubar (the model's expression), state row s of 18 values.
double dipole_component(const DipolarParams& p, const double* s, int a) {
  return s[6 + 3 * a] * p.dipole[0] + s[7 + 3 * a] * p.dipole[1] + s[8 + 3 * a] * p.dipole[2];
}

struct Reference {
  std::vector<double> F, tau;  // per body
  double V = 0.0;
  std::size_t pairs = 0;  // ordered pairs within the cutoff
};

// Brute force: every body against all 27 images (shifts -1, 0, 1 periods on the periodic axes,
// 0 on the open ones) of every wrapped body, with the same cutoff and no minimum image.
Reference images27(const DipolarParams& p, const std::vector<double>& y) {
  const std::size_t n = p.n;
  std::vector<std::array<int, 3>> shifts;
  for (int a = -1; a <= 1; ++a)
    for (int b = -1; b <= 1; ++b)
      for (int c = -1; c <= 1; ++c) {
        const std::array<int, 3> s{a, b, c};
        bool ok = true;
        for (std::size_t k = 0; k < 3; ++k) ok = ok && (p.box.periodic[k] || s[k] == 0);
        if (ok) shifts.push_back(s);
      }
  dipolar::PartnerSoA all;
  all.resize(shifts.size() * n);
  std::vector<double> mu(3 * n), qw(3 * n);
  for (std::size_t j = 0; j < n; ++j) {
    const double* s = &y[18 * j];
    for (int a = 0; a < 3; ++a) {
      mu[3 * j + a] = dipole_component(p, s, a);
      const double L = p.box.length[static_cast<std::size_t>(a)];
      double w = s[a];
      if (p.box.periodic[static_cast<std::size_t>(a)]) {  // independent of PeriodicBox::wrap
        w = std::fmod(s[a], L);
        if (w < 0.0) w += L;
      }
      qw[3 * j + a] = w;
    }
  }
  std::size_t self_shift = 0;
  for (std::size_t k = 0; k < shifts.size(); ++k) {
    if (shifts[k] == std::array<int, 3>{0, 0, 0}) self_shift = k;
    for (std::size_t j = 0; j < n; ++j) {
      double q[3], km[3];
      for (std::size_t a = 0; a < 3; ++a) {
        q[a] = qw[3 * j + a] + shifts[k][a] * p.box.length[a];
        km[a] = p.dipole_strength * mu[3 * j + a];
      }
      all.set(k * n + j, q, km);
    }
  }
  dipolar::PairParams pp;
  pp.eps = p.epsilon;
  pp.sigma = p.sigma;
  pp.attraction = p.lj_attraction ? 1.0 : 0.0;
  pp.cutoff2 = p.cutoff * p.cutoff;
  Reference ref;
  ref.F.resize(3 * n);
  ref.tau.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    dipolar::RowSums r;
    dipolar::ordered_row(all, 0, all.n, self_shift * n + i, &qw[3 * i], &mu[3 * i], pp, true, r);
    const Vec3 m(mu[3 * i], mu[3 * i + 1], mu[3 * i + 2]), g(r.field[0], r.field[1], r.field[2]);
    const Vec3 t = -(Eigen::Map<const RowMat3>(&y[18 * i + 6]).transpose() * m.cross(g));
    for (int k = 0; k < 3; ++k) {
      ref.F[3 * i + k] = r.force[k] + r.s * mu[3 * i + k];
      ref.tau[3 * i + k] = t(k);
    }
    ref.V += 0.5 * r.energy;
    for (std::size_t j = 0; j < all.n; ++j) {
      double r2 = 0.0;
      r2 += (all.x[j] - qw[3 * i]) * (all.x[j] - qw[3 * i]);
      r2 += (all.y[j] - qw[3 * i + 1]) * (all.y[j] - qw[3 * i + 1]);
      r2 += (all.z[j] - qw[3 * i + 2]) * (all.z[j] - qw[3 * i + 2]);
      if (j != self_shift * n + i && r2 < pp.cutoff2) ++ref.pairs;
    }
  }
  return ref;
}

void check_against_images(const DipolarParams& p, std::uint64_t seed) {
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  const std::vector<double> y = box_state(model, seed);
  std::vector<double> f(model.space().alg_size());
  model.vector_field(0.0, y.data(), f.data());
  const Reference ref = images27(p, y);
  double scale = 0.0, dF = 0.0, dT = 0.0;
  std::size_t across = 0;  // bodies with a partner only through a face
  for (std::size_t i = 0; i < p.n; ++i)
    for (int k = 0; k < 3; ++k) {
      scale = std::max({scale, std::fabs(ref.F[3 * i + k]), std::fabs(ref.tau[3 * i + k])});
      dF = std::max(dF, std::fabs(f[12 * i + 3 + k] - ref.F[3 * i + k]));
      dT = std::max(dT, std::fabs(f[12 * i + 9 + k] - ref.tau[3 * i + k]));
    }
  // The images matter: without them (no box, the same cutoff) the forces differ.
  DipolarParams open = p;
  open.box = PeriodicBox{};
  Dipolar unboxed(open, ctx);
  std::vector<double> yw = y, fo(f.size());
  for (std::size_t i = 0; i < p.n; ++i)
    for (int a = 0; a < 3; ++a) yw[18 * i + a] = p.box.wrap(a, y[18 * i + a]);
  unboxed.vector_field(0.0, yw.data(), fo.data());
  for (std::size_t i = 0; i < p.n; ++i)
    if (std::fabs(fo[12 * i + 3] - f[12 * i + 3]) > 1e-6 * scale) ++across;
  EXPECT_GT(across, p.n / 10) << "too few bodies interacting through the faces to test";
  ASSERT_GT(ref.pairs, 2 * p.n) << "too few pairs within the cutoff";
  EXPECT_LT(dF, 1e-12 * scale);
  EXPECT_LT(dT, 1e-12 * scale);
  const double V = model.potential_energy(y.data());
  // shift (LAMMPS's offset with a = 1): 4 eps ((s/rc)^12 - (s/rc)^6) per unordered pair
  const double s6 = std::pow(p.sigma / p.cutoff, 6);
  const double shift = p.cutoff_shift ? 0.5 * static_cast<double>(ref.pairs) * 4.0 * p.epsilon * (s6 * s6 - s6) : 0.0;
  EXPECT_NEAR(V, ref.V - shift, 1e-11 * std::fabs(ref.V));
}

}  // namespace

TEST(DipolarBox, MinimumImageMatchesSumOverAll27Images) {
  check_against_images(box_params({true, true, true}, false), 3);
}

TEST(DipolarBox, OpenAxesAndEnergyShiftMatchTheImageSum) {
  check_against_images(box_params({true, false, true}, false), 4);
  check_against_images(box_params({true, true, true}, true), 5);
  // the shift changes the energy only: the same forces bit for bit
  par::Context ctx(MPI_COMM_SELF);
  DipolarParams a = box_params({true, true, true}, false), b = a;
  b.cutoff_shift = true;
  Dipolar ma(a, ctx), mb(b, ctx);
  const std::vector<double> y = box_state(ma, 6);
  std::vector<double> fa(ma.space().alg_size()), fb(fa.size());
  ma.vector_field(0.0, y.data(), fa.data());
  mb.vector_field(0.0, y.data(), fb.data());
  EXPECT_EQ(fa, fb);
  EXPECT_GT(std::fabs(ma.potential_energy(y.data()) - mb.potential_energy(y.data())), 1e-3);
}

// A body crossing a periodic face: the whole configuration translated (bodies leave through
// the faces) and single bodies moved by whole periods give the same forces and energy.
// The cutoff path computes each pair once within a rank and gives every body the fold of its
// pair terms in partner order (parallel/spatial_domains.hpp, issue 27): written again here as
// the plain double loop -- for body b, the partners j in increasing index with r^2 < rc^2, each
// pair's terms (dipolar::pair_terms) taken in the orientation (min, max) and added one after
// another -- it must give the model's forces and torques bit for bit, with periodic and open
// axes. The same loop with the partners in decreasing order differs (so order is what is tested).
std::vector<double> fold_in_partner_order(const DipolarParams& p, const std::vector<double>& y, bool reversed,
                                          double* V_total) {
  const std::size_t n = p.n;
  std::vector<double> q(3 * n), mu(3 * n);
  for (std::size_t j = 0; j < n; ++j)
    for (int a = 0; a < 3; ++a) {
      const double* s = &y[18 * j];
      q[3 * j + a] = p.box.wrap(a, s[a]);
      mu[3 * j + a] = dipole_component(p, s, a);
    }
  dipolar::PairParams pp;
  pp.eps = p.epsilon;
  pp.sigma = p.sigma;
  pp.attraction = p.lj_attraction ? 1.0 : 0.0;
  if (p.cutoff_shift) {
    const double s6 = std::pow(p.sigma / p.cutoff, 6);
    pp.energy_shift = 4.0 * p.epsilon * (s6 * s6 - pp.attraction * s6);
  }
  const dipolar::PairCoeffs k = dipolar::PairCoeffs::of(pp, p.dipole_strength);
  const double rc2 = p.cutoff * p.cutoff;
  std::vector<double> f(12 * n, 0.0);
  double V = 0.0;
  for (std::size_t b = 0; b < n; ++b) {
    double acc[7] = {0, 0, 0, 0, 0, 0, 0};
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t j = reversed ? n - 1 - step : step;
      if (j == b) continue;
      const std::size_t lo = std::min(b, j), hi = std::max(b, j);
      double d[3];
      for (int a = 0; a < 3; ++a) {  // as SpatialDomains::pair_r2
        const double L = p.box.kernel_length(a), h = p.box.kernel_half(a);
        d[a] = q[3 * lo + a] - q[3 * hi + a];
        d[a] -= L * ((d[a] > h ? 1.0 : 0.0) - (d[a] < -h ? 1.0 : 0.0));
      }
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(r2 < rc2)) continue;
      double F[3], hlo[3], hhi[3], v;
      dipolar::pair_terms<true>(k, d[0], d[1], d[2], r2, 1.0, mu[3 * lo], mu[3 * lo + 1], mu[3 * lo + 2], mu[3 * hi],
                                mu[3 * hi + 1], mu[3 * hi + 2], F[0], F[1], F[2], hlo[0], hlo[1], hlo[2], hhi[0],
                                hhi[1], hhi[2], v);
      for (int a = 0; a < 3; ++a) {
        acc[a] += b == lo ? F[a] : -F[a];
        acc[3 + a] += b == lo ? hlo[a] : hhi[a];
      }
      acc[6] += v;
    }
    // the model's vector field: dp = F, alpha = -Q^T (mu x g), g = kappa h
    const double g[3] = {p.dipole_strength * acc[3], p.dipole_strength * acc[4], p.dipole_strength * acc[5]};
    const double* m = &mu[3 * b];
    const double* Q = &y[18 * b + 6];
    const double t[3] = {m[1] * g[2] - m[2] * g[1], m[2] * g[0] - m[0] * g[2], m[0] * g[1] - m[1] * g[0]};
    for (int a = 0; a < 3; ++a) {
      f[12 * b + 3 + a] = acc[a];
      f[12 * b + 9 + a] = -(Q[a] * t[0] + Q[3 + a] * t[1] + Q[6 + a] * t[2]);
    }
    V += 0.5 * acc[6];
  }
  *V_total = V;
  return f;
}

TEST(DipolarBox, EachBodysSumsAreTheFoldOfItsPairTermsInPartnerOrder) {
  for (const auto& [periodic, shift] : {std::pair<std::array<bool, 3>, bool>{{true, true, true}, true},
                                        std::pair<std::array<bool, 3>, bool>{{true, false, true}, false}}) {
    DipolarParams p = box_params(periodic, shift);
    p.n = 200;
    par::Context ctx(MPI_COMM_SELF);
    Dipolar model(p, ctx);
    const std::vector<double> y = box_state(model, 11);
    std::vector<double> f(model.space().alg_size());
    model.vector_field(0.0, y.data(), f.data());
    double V_ref = 0.0, V_rev = 0.0;
    const std::vector<double> ref = fold_in_partner_order(p, y, false, &V_ref);
    const std::vector<double> rev = fold_in_partner_order(p, y, true, &V_rev);
    std::size_t differ = 0, differ_reversed = 0;
    for (std::size_t i = 0; i < p.n; ++i)
      for (const std::size_t c : {3, 4, 5, 9, 10, 11}) {
        differ += f[12 * i + c] != ref[12 * i + c];
        differ_reversed += rev[12 * i + c] != ref[12 * i + c];
      }
    EXPECT_EQ(differ, 0u) << "force and torque components that are not the fold in partner order";
    EXPECT_GT(differ_reversed, p.n / 2) << "the order must matter in the last bits";
    EXPECT_NEAR(model.potential_energy(y.data()), V_ref, 1e-13 * std::fabs(V_ref));
  }
}

// Each pair once within a rank: one thread computes half the Verlet list entries (every list
// holds both orientations of a pair); two threads (two parts of the home bodies) compute the
// pairs between the parts twice, and nothing else twice -- with the same bits.
TEST(DipolarBox, EachPairOnceWithinARank) {
  const DipolarParams p = box_params({true, true, true}, false);
  const int threads = omp_get_max_threads();
  std::vector<double> f1, f2;
  std::size_t entries = 0, terms1 = 0, terms2 = 0;
  for (const int t : {1, 2}) {
    omp_set_num_threads(t);
    par::Context ctx(MPI_COMM_SELF);
    Dipolar model(p, ctx);
    const std::vector<double> y = box_state(model, 5);
    std::vector<double> f(model.space().alg_size());
    model.vector_field(0.0, y.data(), f.data());
    const par::DomainTraffic& tr = model.domains()->traffic();
    entries = tr.list_entries;
    (t == 1 ? terms1 : terms2) = tr.pair_terms;
    (t == 1 ? f1 : f2) = f;
  }
  omp_set_num_threads(threads);
  ASSERT_GT(entries, 4 * p.n);
  EXPECT_EQ(2 * terms1, entries);
  EXPECT_GT(terms2, terms1);
  EXPECT_LT(terms2, entries);
  EXPECT_EQ(f1, f2);
}

// The Verlet lists hold exactly the bodies within rc + skin (SpatialDomains::pair_r2), in slot
// order, whether the cells are a dense table (a box) or found by binary search (a sparse cloud
// on open axes); cells beyond reach are skipped by a conservative bound, which must lose no pair.
TEST(DipolarBox, VerletListsHoldExactlyTheBodiesWithinReach) {
  for (const bool sparse : {false, true}) {
    DipolarParams p = box_params({true, true, true}, false);
    p.skin = 0.45;
    par::Context ctx(MPI_COMM_SELF);
    std::vector<double> y;
    {
      Dipolar boxed(p, ctx);
      y = box_state(boxed, 13, false);
    }
    if (sparse) p.box = PeriodicBox{};  // open axes
    Dipolar model(p, ctx);
    if (sparse)  // clusters 300 apart: a grid of ~10^5 cells for 150 bodies
      for (std::size_t i = 0; i < p.n; ++i) y[18 * i] += 300.0 * static_cast<double>(i % 3), y[18 * i + 1] += 300.0 * static_cast<double>(i % 5);
    std::vector<double> f(model.space().alg_size());
    model.vector_field(0.0, y.data(), f.data());
    const par::SpatialDomains& d = *model.domains();
    const double reach2 = (p.cutoff + p.skin) * (p.cutoff + p.skin);
    ASSERT_EQ(d.home_count(), p.n);
    std::size_t entries = 0;
    for (std::size_t h = 0; h < d.home_count(); ++h) {
      const std::uint32_t si = d.home_slot(h);
      std::vector<std::uint32_t> expect;
      for (std::uint32_t s = 0; s < d.domain_size(); ++s)
        if (s != si && d.pair_r2(si, s) < reach2) expect.push_back(s);
      const std::vector<std::uint32_t> got(d.list_begin(h), d.list_end(h));
      EXPECT_EQ(got, expect) << (sparse ? "sparse" : "dense") << " cells, home " << h;
      entries += got.size();
    }
    EXPECT_GT(entries, 2 * p.n) << (sparse ? "sparse" : "dense");
  }
}

TEST(DipolarBox, CrossingAFaceChangesNothing) {
  const DipolarParams p = box_params({true, true, true}, false);
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  const std::vector<double> y = box_state(model, 7, false);
  std::vector<double> f0(model.space().alg_size()), f1(f0.size()), f2(f0.size());
  model.vector_field(0.0, y.data(), f0.data());
  const double V0 = model.potential_energy(y.data());
  std::vector<double> yt = y, yp = y;
  std::size_t crossed = 0;
  const double t[3] = {2.3, -3.1, 1.7};
  for (std::size_t i = 0; i < p.n; ++i) {
    bool c = false;
    for (int a = 0; a < 3; ++a) {
      yt[18 * i + a] += t[a];
      c = c || std::floor(yt[18 * i + a] / p.box.length[static_cast<std::size_t>(a)]) != 0.0;
      yp[18 * i + a] += (i % 3 == static_cast<std::size_t>(a) ? -1.0 : 2.0) * p.box.length[static_cast<std::size_t>(a)];
    }
    crossed += c;
  }
  ASSERT_GT(crossed, p.n / 3);
  model.vector_field(0.0, yt.data(), f1.data());
  model.vector_field(0.0, yp.data(), f2.data());
  double scale = 0.0, d1 = 0.0, d2 = 0.0;
  for (std::size_t k = 0; k < f0.size(); ++k) {
    scale = std::max(scale, std::fabs(f0[k]));
    d1 = std::max(d1, std::fabs(f1[k] - f0[k]));
    d2 = std::max(d2, std::fabs(f2[k] - f0[k]));
  }
  EXPECT_LT(d1, 1e-12 * scale);
  EXPECT_LT(d2, 1e-12 * scale);
  EXPECT_NEAR(model.potential_energy(yt.data()), V0, 1e-12 * std::fabs(V0));
  EXPECT_NEAR(model.potential_energy(yp.data()), V0, 1e-12 * std::fabs(V0));
}

// dlm in the box over t = 2, 60 bodies, energy shift on. With soft spheres + LJ only (kappa = 0:
// the shifted energy is continuous at the cutoff) the energy error is small and falls as h^2
// across the faces. With the dipoles (kappa = 1.3) it is dominated by the truncation (pairs
// crossing the cutoff make the unshifted dipole energy jump: about 0.24 |H0| here, whatever h);
// the linear momentum is kept to rounding and the centre of mass moves exactly with P t / (N M):
// the state holds unwrapped positions (a wrapped state would jump by L).
struct BoxRun {
  double dH = 0.0, H0 = 0.0, kin = 0.0;
  std::vector<double> y0, y;
  Observables o0, o;
};

BoxRun box_run(double kappa, double h) {
  DipolarParams p = box_params({true, true, true}, true);
  p.n = 60;
  p.dipole_strength = kappa;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  BoxRun r;
  r.y0 = box_state(model, 8, false);
  r.y = r.y0;
  auto st = make_stepper("dlm", Config::from_pairs({}), model);
  st->bind(model, ctx);
  FixedStepOptions opt;
  opt.h = h;
  opt.steps = static_cast<std::uint64_t>(std::llround(2.0 / h));
  opt.stride = 1;
  model.observables(0.0, r.y0.data(), r.o0);
  r.H0 = r.o0.get("total_energy");
  integrate_fixed(*st, r.y.data(), opt, [&](double t, const double* ys, std::uint64_t) {
    Observables ob;
    model.observables(t, ys, ob);
    r.dH = std::max(r.dH, std::fabs(ob.get("total_energy") - r.H0));
  });
  model.observables(2.0, r.y.data(), r.o);
  for (std::size_t i = 0; i < p.n; ++i)
    for (int a = 0; a < 3; ++a) r.kin += r.y0[18 * i + 3 + a] * r.y0[18 * i + 3 + a] / (2.0 * p.mass);
  return r;
}

TEST(DipolarBox, DlmEnergyErrorIsSecondOrderWithoutTheDipoles) {
  const BoxRun a = box_run(0.0, 0.005), b = box_run(0.0, 0.0025);
  EXPECT_LT(b.dH, 1e-3 * (b.kin + std::fabs(b.H0)));
  EXPECT_NEAR(a.dH / b.dH, 4.0, 1.0) << a.dH << " " << b.dH;
}

TEST(DipolarBox, DlmRunKeepsMomentumAndTheUnwrappedCentreOfMass) {
  const DipolarParams p = box_params({true, true, true}, true);
  const BoxRun r = box_run(1.3, 0.005);
  double crossed = 0.0;
  for (std::size_t i = 0; i < 60; ++i)
    for (int a = 0; a < 3; ++a) crossed += std::floor(r.y[18 * i + a] / p.box.length[static_cast<std::size_t>(a)]) != 0.0;
  EXPECT_GT(crossed, 0.0) << "some body must leave the box (unwrapped)";
  EXPECT_LT(r.dH, 0.5 * std::fabs(r.H0)) << "truncation-dominated energy error, bounded";
  const char* c[3] = {"linear_momentum_x", "linear_momentum_y", "linear_momentum_z"};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(r.o.get(c[a]), r.o0.get(c[a]), 1e-12);
    double com0 = 0.0, com1 = 0.0;
    for (std::size_t i = 0; i < 60; ++i) com0 += r.y0[18 * i + a], com1 += r.y[18 * i + a];
    EXPECT_NEAR(com1 - com0, r.o0.get(c[a]) / p.mass * 2.0, 1e-9) << "axis " << a;
  }
}

TEST(DipolarBox, BadBoxesAreRefusedNamingTheKey) {
  auto expect_usage = [&](std::vector<std::pair<std::string, std::string>> kv, const std::string& text) {
    kv.emplace_back("model", "dipolar");
    kv.emplace_back("dipolar.N", "5");
    par::Context ctx(MPI_COMM_SELF);
    try {
      make_model(Config::from_pairs(kv), ctx);
      ADD_FAILURE() << "no error for " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
  };
  expect_usage({{"dipolar.box", "10, 10, 10"}}, "minimum image is implemented on the cutoff path only");
  expect_usage({{"dipolar.box", "10, 10, 10"}, {"dipolar.cutoff", "5.5"}}, "more than half the periodic x length");
  expect_usage({{"dipolar.box", "20, 20, 4"}, {"dipolar.cutoff", "3"}}, "periodic z length 4");
  expect_usage({{"dipolar.box", "10, 0, 10"}, {"dipolar.cutoff", "3"}}, "dipolar.box");
  expect_usage({{"dipolar.box", "10, -2, 10"}, {"dipolar.cutoff", "3"}}, "dipolar.box");
  expect_usage({{"dipolar.box", "10, 10"}, {"dipolar.cutoff", "3"}}, "needs 3 values");
  expect_usage({{"dipolar.box", "10, 10, 10"}, {"dipolar.cutoff", "3"}, {"dipolar.periodic", "w"}}, "dipolar.periodic");
  expect_usage({{"dipolar.cutoff_shift", "true"}}, "dipolar.cutoff_shift");
  // accepted: cutoff = L/2 exactly, an open axis shorter than 2 cutoffs
  par::Context ctx(MPI_COMM_SELF);
  EXPECT_NO_THROW(make_model(Config::from_pairs({{"model", "dipolar"}, {"dipolar.N", "5"}, {"dipolar.cutoff", "5"},
                                                 {"dipolar.box", "10, 4, 10"}, {"dipolar.periodic", "x, z"}}),
                             ctx));
}
