#include "models/nfold_pendulum.hpp"

#include "core/lanes.hpp"
#include "core/numeric.hpp"
#include "core/quote.hpp"
#include "groups/maps.hpp"

#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "groups/so3.hpp"
#include "io/hdf5_rows.hpp"
#include "models/state_rows.hpp"
#include "parallel/exact_sum.hpp"
#include "parallel/loops.hpp"

namespace lie {

namespace {

const bool kKeys = declare_options({
    {"nfold_pendulum.N", OptionType::PositiveInt, "2", "number of links N", {}, "nfold_pendulum"},
    {"nfold_pendulum.mass", OptionType::PositiveRealList, "1",
     "bob masses m_i: one value for every link, or a list of N values", {}, "nfold_pendulum"},
    {"nfold_pendulum.length", OptionType::PositiveRealList, "1",
     "link lengths L_i: one value for every link, or a list of N values", {}, "nfold_pendulum"},
    {"nfold_pendulum.total_length", OptionType::PositiveReal, "",
     "if set, every link has length total_length/N ([P] 5.3 uses 5/N); excludes nfold_pendulum.length", {},
     "nfold_pendulum"},
    {"nfold_pendulum.gravity", OptionType::NonNegativeReal, "9.81", "gravitational acceleration g (along -e3)", {},
     "nfold_pendulum"},
    {"nfold_pendulum.initial", OptionType::Choice, "paper",
     "initial state: paper = every (q_i, w_i) = (cos(pi/4), 0, sin(pi/4), 0, 1, 0) [P] 5.3 (planar motion); authors = "
     "every (q_i, w_i) = (1, 0, 0, 0, 0, 0), the state of the authors' code and figures of [P] 5.3; random = "
     "seeded, uniformly distributed q_i, Gaussian tangent w_i (genuinely 3-D); file = rows (q_i, w_i) of an HDF5 "
     "dataset (nfold_pendulum.file, nfold_pendulum.dataset); custom = nfold_pendulum.q0 and nfold_pendulum.w0",
     {"paper", "authors", "random", "file", "custom"}, "nfold_pendulum"},
    {"nfold_pendulum.q0", OptionType::RealList, "",
     "initial = custom: link directions q_i, 3 values (all links) or 3N values; each |q_i| = 1 to 1e-12", {},
     "nfold_pendulum"},
    {"nfold_pendulum.w0", OptionType::RealList, "",
     "initial = custom: angular velocities w_i, 3 values (all links) or 3N values; each tangent, q_i.w_i = 0 to "
     "1e-12 (1 + |w_i|)",
     {}, "nfold_pendulum"},
    {"nfold_pendulum.seed", OptionType::NonNegativeInt, "1", "seed of the random initial state", {}, "nfold_pendulum"},
    {"nfold_pendulum.file", OptionType::String, "",
     "HDF5 file of the initial state (initial = file), e.g. a result file of an earlier run", {}, "nfold_pendulum"},
    {"nfold_pendulum.dataset", OptionType::String, "/runs/run_00000/final_state",
     "dataset [N][6] of rows (q_i, w_i) in nfold_pendulum.file; N is taken from it unless nfold_pendulum.N is set",
     {}, "nfold_pendulum"},
    {"nfold_pendulum.blocks", OptionType::NonNegativeInt, "0",
     "virtual blocks of the chain (0: min(256, ceil(N/16))); fixes the arithmetic, so results are bitwise "
     "identical for every ranks x threads layout with ranks <= blocks; at most N/2",
     {}, "nfold_pendulum"},
    {"nfold_pendulum.solver", OptionType::Choice, "tridiagonal",
     "angular accelerations: tridiagonal = O(N) tension solve (distributed); dense = Cholesky of the 3N x 3N "
     "R(q) of [P] 5.2 (O(N^3), one rank, N <= 2000; for checks and timing ratios)",
     {"tridiagonal", "dense"}, "nfold_pendulum"},
    {"nfold_pendulum.classical_field", OptionType::Choice, "paper",
     "field the classical methods (rk4, dopri54, ..._proj) integrate in R^6N: paper = [P] 5.2's q_i' = w_i x q_i, "
     "R(q) w' = F(q, w) written for any q (the papers' RK4/ODE45 baselines); lie_algebra = psi_*(f(y)), which agrees "
     "with it only on (TS^2)^N",
     {"paper", "lie_algebra"}, "nfold_pendulum"},
});


inline double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline void cross3(const double* a, const double* b, double* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// f for one link: (u_i, v_i) = (w_i, q_i x h_i) in se(3)   ([P] 5.2)
/// x may be qw (the dense path's vector_field in place).
inline void link_algebra(const double* qw, const double* h, double* x) {
  double qxh[3];
  cross3(qw, h, qxh);
  x[0] = qw[3], x[1] = qw[4], x[2] = qw[5];
  x[3] = qxh[0], x[4] = qxh[1], x[5] = qxh[2];
}

// Counter-based random numbers (splitmix64, core/numeric.hpp): the value for (seed, link, k)
// does not depend on which rank generates it.
inline double uniform01(std::uint64_t seed, std::uint64_t link, std::uint64_t k) {
  const std::uint64_t h = splitmix64(splitmix64(seed * 0x2545f4914f6cdd1dull + link) ^ (k * 0x9e3779b97f4a7c15ull));
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
}
inline void gaussian3(std::uint64_t seed, std::uint64_t link, std::uint64_t k0, double* out) {
  // Box-Muller from four uniforms; the fourth normal is discarded.
  const double pi2 = 6.283185307179586;
  const double r1 = std::sqrt(-2.0 * std::log(uniform01(seed, link, k0)));
  const double a1 = pi2 * uniform01(seed, link, k0 + 1);
  const double r2 = std::sqrt(-2.0 * std::log(uniform01(seed, link, k0 + 2)));
  const double a2 = pi2 * uniform01(seed, link, k0 + 3);
  out[0] = r1 * std::cos(a1);
  out[1] = r1 * std::sin(a1);
  out[2] = r2 * std::cos(a2);
}

constexpr std::size_t kThreadedLinks = 512;  // local links before loops use an OpenMP team

// The rows of the tension system K tau = r (header comment), one per link (global i = off + li),
// for par::PartitionedTridiagonal. skip_lower: the solver does not need `lower` (solve_blocks),
// so q_{i-1} is not read. K is symmetric bit for bit: lower of row i and upper of row i-1 are
// both -(q_{i-1} . q_i) / m_{i-1}, the same expression (the solver is built with symmetric = true
// and takes one for the other). sweep_lanes: the solver's unrolled middle rows with four blocks'
// rows in one vector (chain_sweep_lanes below: AVX2 / AVX-512 clones, the same operations).
struct ChainRows {
  const double* y;
  std::size_t off, N;
  long n_local;
  double g;
  const double* inv_mass;  // 1/m: one value (uniform) or one per link
  bool uniform_mass;
  const double *length, *inv_length;  // L and 1/L: one value (uniform) or one per link
  bool uniform_length;
  const double *halo_prev, *halo_next;

  double im(std::size_t i) const { return uniform_mass ? inv_mass[0] : inv_mass[i]; }
  double L(std::size_t i) const { return uniform_length ? length[0] : length[i]; }
  double il(std::size_t i) const { return uniform_length ? inv_length[0] : inv_length[i]; }
  // q of local link li in [-1, n_local] (the halo just outside this rank's links)
  const double* q_at(long li) const { return li < 0 ? halo_prev : li >= n_local ? halo_next : y + 6 * li; }
  par::TridiagonalRow operator()(std::size_t li, bool skip_lower) const {
    const std::size_t i = off + li;
    const double* q = y + 6 * li;
    const double* w = q + 3;
    par::TridiagonalRow R;
    const double m_inv = im(i);
    if (i > 0) {
      const double imp = im(i - 1);
      if (!skip_lower) R.lower = -dot3(q_at(static_cast<long>(li) - 1), q) * imp;
      R.diag = imp + m_inv;
    } else {
      R.diag = m_inv;
    }
    if (i + 1 < N) R.upper = -dot3(q, q_at(static_cast<long>(li) + 1)) * m_inv;
    double wxq[3];
    cross3(w, q, wxq);
    R.rhs = L(i) * dot3(wxq, wxq);
    if (i == 0) R.rhs -= g * q[2];
    return R;
  }
  inline void sweep_lanes(par::PartitionedTridiagonal::LaneSweep& s) const;
};

// operator()'s diag, upper and rhs for the four lanes' rows at once (middle rows: 0 < i < N - 1,
// the link after each row local). q_i is carried from one row to the next.
template <bool UniformMass, bool UniformLength>
[[gnu::always_inline]] inline void chain_sweep_body(const ChainRows& r, par::PartitionedTridiagonal::LaneSweep& s) {
  using V = par::PartitionedTridiagonal::Lanes;
  const double* y = r.y;
  std::size_t lr[4], gi[4];
  for (int l = 0; l < 4; ++l) lr[l] = s.row[l], gi[l] = r.off + s.row[l];
  const double *p0 = y + 6 * (lr[0] + s.begin), *p1 = y + 6 * (lr[1] + s.begin), *p2 = y + 6 * (lr[2] + s.begin),
               *p3 = y + 6 * (lr[3] + s.begin);
  V qx = {p0[0], p1[0], p2[0], p3[0]}, qy = {p0[1], p1[1], p2[1], p3[1]}, qz = {p0[2], p1[2], p2[2], p3[2]};
  const V im_uniform = {r.inv_mass[0], r.inv_mass[0], r.inv_mass[0], r.inv_mass[0]};
  const V L_uniform = {r.length[0], r.length[0], r.length[0], r.length[0]};
  par::PartitionedTridiagonal::sweep_lanes_symmetric(
      s, [&](std::size_t step, V& diag, V& upper, V& rhs) __attribute__((always_inline)) {
        // w_i and q_{i+1} of each lane: 6 consecutive doubles, loaded as (w_x, w_y, w_z, n_x) and
        // (w_z, n_x, n_y, n_z) and transposed to one vector per coordinate
        V lo[4], hi[4], clo[4], chi[4];
        for (int l = 0; l < 4; ++l) {
          const double* a = y + 6 * (lr[l] + step) + 3;
          lanes::load4(a, lo[l]);
          lanes::load4(a + 2, hi[l]);
        }
        lanes::transpose4(lo, clo);
        lanes::transpose4(hi, chi);
        const V &wx = clo[0], &wy = clo[1], &wz = chi[0], &nx = chi[1], &ny = chi[2], &nz = chi[3];
        V imp = im_uniform, im = im_uniform, L = L_uniform;
        if constexpr (!UniformMass) {
          const double* m = r.inv_mass + step;
          imp = V{m[gi[0] - 1], m[gi[1] - 1], m[gi[2] - 1], m[gi[3] - 1]};
          im = V{m[gi[0]], m[gi[1]], m[gi[2]], m[gi[3]]};
        }
        if constexpr (!UniformLength) {
          const double* len = r.length + step;
          L = V{len[gi[0]], len[gi[1]], len[gi[2]], len[gi[3]]};
        }
        diag = imp + im;
        upper = -((qx * nx + qy * ny) + qz * nz) * im;
        const V c0 = wy * qz - wz * qy, c1 = wz * qx - wx * qz, c2 = wx * qy - wy * qx;
        rhs = L * ((c0 * c0 + c1 * c1) + c2 * c2);
        qx = nx, qy = ny, qz = nz;
      });
}

#define LIEBENCH_CHAIN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
LIEBENCH_CHAIN_CLONES void chain_sweep_lanes(const ChainRows& r, par::PartitionedTridiagonal::LaneSweep& s) {
  if (r.uniform_mass && r.uniform_length) chain_sweep_body<true, true>(r, s);
  else if (r.uniform_mass) chain_sweep_body<true, false>(r, s);
  else if (r.uniform_length) chain_sweep_body<false, true>(r, s);
  else chain_sweep_body<false, false>(r, s);
}

inline void ChainRows::sweep_lanes(par::PartitionedTridiagonal::LaneSweep& s) const { chain_sweep_lanes(*this, s); }

// The second pass of one block of links [lb0, le) (local indices) with its tensions tau[k] (link
// lb0 + k, k = -1 ... le - lb0): w'_i by the header's formula and f = (w_i, q_i x w'_i) into xi
// and/or w' into h. saved: q of the links just before and just after the block (the block may be
// overwritten: xi == y). Groups of four links inside the block (all but the block's first link
// and the last few, whose q_{i+1} is another group's) run in one vector per coordinate, the
// other links one by one; the same operations per link either way.
struct LinkField {
  const ChainRows& r;
  const double* tau;
  std::size_t lb0;
  double* h;
  double* xi;
  // Link li from q_prev, q, q_next and w (values read before xi overwrote them).
  [[gnu::always_inline]] inline void one(std::size_t li, const double* q_prev, const double* q, const double* q_next,
                                         const double* w) const {
    const std::size_t i = r.off + li, k = li - lb0;  // tau[k] is link li's tension
    double F[3] = {0.0, 0.0, 0.0}, cr[3];
    if (i + 1 < r.N) {
      const double a = tau[k + 1] * r.im(i);
      cross3(q, q_next, cr);
      for (int c = 0; c < 3; ++c) F[c] += a * cr[c];
    }
    if (i > 0) {
      const double a = tau[static_cast<std::ptrdiff_t>(k) - 1] * r.im(i - 1);
      cross3(q_prev, q, cr);
      for (int c = 0; c < 3; ++c) F[c] -= a * cr[c];
    } else {
      // -g q_1 x e3 = -g (q_y, -q_x, 0)
      F[0] -= r.g * q[1];
      F[1] += r.g * q[0];
    }
    const double inv_l = r.il(i);
    double hl[3];
    for (int c = 0; c < 3; ++c) hl[c] = F[c] * inv_l;
    const double qw[6] = {q[0], q[1], q[2], w[0], w[1], w[2]};
    if (h) std::copy_n(hl, 3, h + 3 * li);
    if (xi) link_algebra(qw, hl, xi + 6 * li);
  }
  // Links li ... li + 3 (0 < i, i + 4 < N, link li + 4 in the block) with q_prev of link li - 1:
  // one()'s operations in vectors, lane j = link li + j.
  [[gnu::always_inline]] inline void four(std::size_t li, const double* q_prev) const {
    using V = par::PartitionedTridiagonal::Lanes;
    const double* a = r.y + 6 * li;  // links li ... li + 4 at a + 6 j
    const std::size_t i = r.off + li, k = li - lb0;
    V rows[6], col[6];
    for (int j = 0; j < 6; ++j) lanes::load4(a + 4 * j, rows[j]);
    lanes::aos6_to_soa(rows, col);  // links li ... li + 3
    const V &qx = col[0], &qy = col[1], &qz = col[2], &wx = col[3], &wy = col[4], &wz = col[5];
    // q of links li + 1 ... li + 4 and li - 1 ... li + 2: the lanes shifted by one
    const V q4 = {a[24], a[25], a[26], 0.0}, qp = {q_prev[0], q_prev[1], q_prev[2], 0.0};
    const V nx = __builtin_shuffle(qx, q4, lanes::M4{1, 2, 3, 4}), ny = __builtin_shuffle(qy, q4, lanes::M4{1, 2, 3, 5}),
            nz = __builtin_shuffle(qz, q4, lanes::M4{1, 2, 3, 6});
    const V px = __builtin_shuffle(qp, qx, lanes::M4{0, 4, 5, 6}), py = __builtin_shuffle(qp, qy, lanes::M4{1, 4, 5, 6}),
            pz = __builtin_shuffle(qp, qz, lanes::M4{2, 4, 5, 6});
    const double* t = tau + k;
    const V tn = {t[1], t[2], t[3], t[4]}, tp = {t[-1], t[0], t[1], t[2]};
    V im_i, im_p, inv_l;
    if (r.uniform_mass) {
      const double m = r.inv_mass[0];
      im_i = im_p = V{m, m, m, m};
    } else {
      const double* m = r.inv_mass + i;
      im_i = V{m[0], m[1], m[2], m[3]}, im_p = V{m[-1], m[0], m[1], m[2]};
    }
    if (r.uniform_length) {
      const double il = r.inv_length[0];
      inv_l = V{il, il, il, il};
    } else {
      const double* il = r.inv_length + i;
      inv_l = V{il[0], il[1], il[2], il[3]};
    }
    const V zero = {0.0, 0.0, 0.0, 0.0};
    const V an = tn * im_i, ap = tp * im_p;
    V Fx = zero + an * (qy * nz - qz * ny), Fy = zero + an * (qz * nx - qx * nz), Fz = zero + an * (qx * ny - qy * nx);
    Fx = Fx - ap * (py * qz - pz * qy), Fy = Fy - ap * (pz * qx - px * qz), Fz = Fz - ap * (px * qy - py * qx);
    const V hx = Fx * inv_l, hy = Fy * inv_l, hz = Fz * inv_l;
    if (h)
      for (int j = 0; j < 4; ++j) {
        double* o = h + 3 * (li + j);
        o[0] = hx[j], o[1] = hy[j], o[2] = hz[j];
      }
    if (xi) {
      const V out[6] = {wx, wy, wz, qy * hz - qz * hy, qz * hx - qx * hz, qx * hy - qy * hx};
      V rows_out[6];
      lanes::soa_to_aos6(out, rows_out);
      for (int j = 0; j < 6; ++j) lanes::store4(xi + 6 * li + 4 * j, rows_out[j]);
    }
  }
};

LIEBENCH_CHAIN_CLONES void chain_block_fields(const ChainRows& r, std::size_t lb0, std::size_t le, const double* tau,
                                              const double* saved, double* h, double* xi) {
  const LinkField lf{r, tau, lb0, h, xi};
  const double* y = r.y;
  double q_prev[3], q[3], w[3];
  std::copy_n(saved, 3, q_prev);
  std::size_t li = lb0;
  auto scalar = [&](std::size_t end) __attribute__((always_inline)) {
    for (; li < end; ++li) {
      const double* q_next = li + 1 < le ? y + 6 * (li + 1) : saved + 3;
      std::copy_n(y + 6 * li, 3, q);
      std::copy_n(y + 6 * li + 3, 3, w);
      const double next[3] = {q_next[0], q_next[1], q_next[2]};  // before xi overwrites link li
      lf.one(li, q_prev, q, next, w);
      std::copy_n(q, 3, q_prev);
    }
  };
  scalar(std::min(le, lb0 + 1));  // the block's first link (the chain's first: gravity)
  for (; li + 4 < le; li += 4) {  // link li + 4 (q_{i+1} of the group's last) in the block
    double last[3];
    std::copy_n(y + 6 * (li + 3), 3, last);  // q_prev of the next group, before xi overwrites it
    lf.four(li, q_prev);
    std::copy_n(last, 3, q_prev);
  }
  scalar(le);
}


}  // namespace

std::size_t NFoldPendulum::default_blocks(std::size_t N) { return std::min<std::size_t>(256, (N + 15) / 16); }

NFoldPendulum::NFoldPendulum(NFoldPendulumParams params, par::Context& ctx) : p_(std::move(params)), ctx_(&ctx) {
  const bool from_file = p_.initial == NFoldPendulumParams::Initial::File;
  if (from_file) {
    if (p_.file.empty()) throw UsageError("key 'nfold_pendulum.file' is empty; initial = file needs an HDF5 file");
    const io::DatasetShape shape = io::probe_rows(p_.file, p_.dataset, ctx.comm(), "nfold_pendulum.file");
    if (shape.cols != 6)
      throw UsageError("dataset " + quote(p_.dataset) + " in " + quote(p_.file) + " (key 'nfold_pendulum.file') has " +
                       std::to_string(shape.cols) + " values per row; the chain needs 6 (q_i, w_i)");
    if (p_.N == 0) p_.N = shape.rows;
    if (shape.rows != p_.N)
      throw UsageError("key 'nfold_pendulum.N' has value " + quote(std::to_string(p_.N)) + " but dataset " + quote(p_.dataset) +
                       " in " + quote(p_.file) + " holds " + std::to_string(shape.rows) + " links");
  }
  const std::size_t N = p_.N;
  const std::string Ns = std::to_string(N);
  if (N == 0) throw UsageError("key 'nfold_pendulum.N' has value '0'; must be an integer >= 1");
  auto check_list = [&](const std::vector<double>& v, const char* key) {
    if (v.size() != 1 && v.size() != N)
      throw UsageError(std::string("key '") + key + "' has " + std::to_string(v.size()) +
                       " values; allowed: one value for every link or N = " + Ns + " values");
    for (double x : v)
      if (!(x > 0.0) || !std::isfinite(x))
        throw UsageError(std::string("key '") + key + "' has value " + quote(num(x)) + "; must be > 0");
  };
  check_list(p_.mass, "nfold_pendulum.mass");
  check_list(p_.length, "nfold_pendulum.length");
  if (p_.initial == NFoldPendulumParams::Initial::Custom) {
    for (auto [v, key] : {std::pair<const std::vector<double>*, const char*>{&p_.q0, "nfold_pendulum.q0"},
                          {&p_.w0, "nfold_pendulum.w0"}})
      if (v->size() != 3 && v->size() != 3 * N)
        throw UsageError(std::string("key '") + key + "' has " + std::to_string(v->size()) +
                         " values; allowed: 3 (the same for every link) or 3N = " + std::to_string(3 * N));
    for (std::size_t i = 0; i < (p_.q0.size() == 3 && p_.w0.size() == 3 ? 1 : N); ++i) {
      const double* q = &p_.q0[p_.q0.size() == 3 ? 0 : 3 * i];
      const double* w = &p_.w0[p_.w0.size() == 3 ? 0 : 3 * i];
      const double qq = dot3(q, q), qw = dot3(q, w), wn = std::sqrt(dot3(w, w));
      const std::string link = " of link " + std::to_string(i + 1);
      if (!(std::fabs(1.0 - qq) <= 1e-12))
        throw UsageError("key 'nfold_pendulum.q0': q" + link + " has |q|^2 = " + num(qq) +
                         "; must be a unit vector (to 1e-12): give q/|q| with 16 significant digits");
      if (!(std::fabs(qw) <= 1e-12 * (1.0 + wn)))
        throw UsageError("key 'nfold_pendulum.w0': w" + link + " has q.w = " + num(qw) +
                         "; must be tangent (q.w = 0 to 1e-12): give w - (q.w) q");
    }
  }
  if (!(p_.gravity >= 0.0) || !std::isfinite(p_.gravity))
    throw UsageError("key 'nfold_pendulum.gravity' has value " + quote(num(p_.gravity)) + "; must be >= 0");
  for (auto [per, src] : {std::pair<PerLink*, const std::vector<double>*>{&mass_, &p_.mass}, {&length_, &p_.length}}) {
    per->values = *src;
    per->inverses.resize(src->size());
    for (std::size_t i = 0; i < src->size(); ++i) per->inverses[i] = 1.0 / (*src)[i];
  }
  if (p_.mass.size() == N && N > 1) {
    suffix_mass_.assign(N, 0.0);
    double acc = 0.0;
    for (std::size_t i = N; i-- > 0;) suffix_mass_[i] = acc += p_.mass[i];
  }

  // Virtual blocks: depend on N and the key only.
  const std::size_t B = p_.blocks == 0 ? default_blocks(N) : p_.blocks;
  const std::size_t max_blocks = N == 1 ? 1 : N / 2;
  if (B > max_blocks)
    throw UsageError("key 'nfold_pendulum.blocks' has value " + quote(std::to_string(p_.blocks)) + "; allowed: 0 (automatic, " +
                     std::to_string(default_blocks(N)) + " for N = " + Ns + ") or 1.." + std::to_string(max_blocks) +
                     " (at most N/2: every block needs 2 links)");
  if (static_cast<std::size_t>(ctx.size()) > B)
    throw UsageError("nfold_pendulum with N = " + Ns + " has " + std::to_string(B) +
                     " virtual blocks (key 'nfold_pendulum.blocks'), fewer than the " + std::to_string(ctx.size()) +
                     " MPI ranks; run on at most " + std::to_string(B) + " ranks, raise nfold_pendulum.blocks (<= " +
                     std::to_string(max_blocks) + "), or set ranks_per_run (e.g. 1) to run grid points side by side");
  if (p_.solver == NFoldPendulumParams::Solver::Dense) {
    if (ctx.size() > 1)
      throw UsageError("key 'nfold_pendulum.solver' has value 'dense'; the dense solve runs on one rank only (got " +
                       std::to_string(ctx.size()) + " ranks); use 'tridiagonal'");
    if (N > kMaxDenseN)
      throw UsageError("key 'nfold_pendulum.solver' has value 'dense' with N = " + Ns +
                       "; the O(N^3) dense solve is allowed for N <= " + std::to_string(kMaxDenseN) +
                       " only; use 'tridiagonal'");
  }
  layout_ = par::BlockLayout(N, B, ctx.size(), ctx.rank());
  solver_ = par::PartitionedTridiagonal(layout_, /*symmetric=*/true);  // row(i).lower == row(i - 1).upper
  space_.add(FactorKind::SE3OnTS2, layout_.local_size(), "links");
  threaded_ = par::use_threads(layout_.local_size(), kThreadedLinks);

  if (from_file) {
    file_state_.resize(space_.state_size());
    io::read_state(p_.file, p_.dataset, *this, ctx, file_state_.data(), "nfold_pendulum.file");
    // A state of another model with 6 values per row would be read silently: check that the
    // rows lie on (TS^2)^N (to 1e-8, far above round-off, far below any other data).
    double worst = 0.0;
    for (std::size_t li = 0; li < layout_.local_size(); ++li) {
      const double* q = &file_state_[6 * li];
      const double wn = std::sqrt(dot3(q + 3, q + 3));
      worst = nan_max(worst, nan_max(std::fabs(1.0 - dot3(q, q)), std::fabs(dot3(q, q + 3)) / (1.0 + wn)));
    }
    const double global_worst = ctx.max(std::isnan(worst) ? std::numeric_limits<double>::infinity() : worst);
    if (!(global_worst <= 1e-8))
      throw UsageError("dataset " + quote(p_.dataset) + " in " + quote(p_.file) + " (key 'nfold_pendulum.file') is not a chain " +
                       "state on (TS^2)^N: max(|1 - |q_i|^2|, |q_i.w_i|/(1 + |w_i|)) = " + std::to_string(global_worst));
  }
}

// <edge> parse: the nfold_pendulum.* keys
NFoldPendulum::Options NFoldPendulum::parse(const Config& cfg) {
  NFoldPendulumParams p;
  p.N = static_cast<std::size_t>(cfg.get_int_at_least("nfold_pendulum.N", 1));
  p.mass = cfg.get_double_list("nfold_pendulum.mass");
  if (cfg.has("nfold_pendulum.total_length")) {
    if (cfg.was_set("nfold_pendulum.length"))
      throw UsageError("keys 'nfold_pendulum.length' and 'nfold_pendulum.total_length' are both set; set one of them");
    p.length = {cfg.get_positive("nfold_pendulum.total_length") / static_cast<double>(p.N)};
  } else {
    p.length = cfg.get_double_list("nfold_pendulum.length");
  }
  p.gravity = cfg.get_nonnegative("nfold_pendulum.gravity");
  const std::string initial = cfg.get_choice("nfold_pendulum.initial", {"paper", "authors", "random", "file", "custom"});
  p.initial = initial == "paper"    ? NFoldPendulumParams::Initial::Paper
              : initial == "authors" ? NFoldPendulumParams::Initial::Authors
              : initial == "random" ? NFoldPendulumParams::Initial::Random
              : initial == "file"   ? NFoldPendulumParams::Initial::File
                                    : NFoldPendulumParams::Initial::Custom;
  if (p.initial == NFoldPendulumParams::Initial::Custom) {
    if (!cfg.has("nfold_pendulum.q0") || !cfg.has("nfold_pendulum.w0"))
      throw UsageError("key 'nfold_pendulum.initial' has value 'custom'; set nfold_pendulum.q0 and nfold_pendulum.w0");
    p.q0 = cfg.get_double_list("nfold_pendulum.q0");
    p.w0 = cfg.get_double_list("nfold_pendulum.w0");
  }
  p.seed = static_cast<std::uint64_t>(cfg.get_int_at_least("nfold_pendulum.seed", 0));
  p.file = cfg.get_string("nfold_pendulum.file", "");
  p.dataset = cfg.get_string("nfold_pendulum.dataset");
  if (p.initial == NFoldPendulumParams::Initial::File && !cfg.was_set("nfold_pendulum.N")) p.N = 0;  // from the file
  p.blocks = static_cast<std::size_t>(cfg.get_int_at_least("nfold_pendulum.blocks", 0));
  p.solver = cfg.get_choice("nfold_pendulum.solver", {"tridiagonal", "dense"}) == "dense"
                 ? NFoldPendulumParams::Solver::Dense
                 : NFoldPendulumParams::Solver::Tridiagonal;
  p.classical_field = cfg.get_choice("nfold_pendulum.classical_field", {"paper", "lie_algebra"}) == "paper"
                          ? NFoldPendulumParams::ClassicalField::Paper
                          : NFoldPendulumParams::ClassicalField::LieAlgebra;
  return p;
}
// </edge>

std::unique_ptr<Model> NFoldPendulum::create(const ModelOptions& options, par::Context& ctx) {
  const Options& p = std::any_cast<const Options&>(options);
  return std::make_unique<NFoldPendulum>(p, ctx);
}

double NFoldPendulum::suffix_mass(std::size_t i) const {
  if (!suffix_mass_.empty()) return suffix_mass_[i];
  return mass_.at(i) * static_cast<double>(p_.N - i);
}

void NFoldPendulum::require_single_rank(const char* what) const {
  if (layout_.local_size() != p_.N)
    throw UsageError(std::string(what) + " of nfold_pendulum needs all links on one rank (got " +
                     std::to_string(ctx_->size()) + " ranks)");
}

// ---------------------------------------------------------------- initial state
void NFoldPendulum::initial_state(double* y) const {
  const std::size_t n = layout_.local_size(), off = layout_.local_items().begin;
  if (p_.initial == NFoldPendulumParams::Initial::File) {
    std::copy(file_state_.begin(), file_state_.end(), y);
    return;
  }
  if (p_.initial == NFoldPendulumParams::Initial::Custom) {
    for (std::size_t li = 0; li < n; ++li) {
      const std::size_t link = off + li;
      const double* q = &p_.q0[p_.q0.size() == 3 ? 0 : 3 * link];
      const double* w = &p_.w0[p_.w0.size() == 3 ? 0 : 3 * link];
      for (int k = 0; k < 3; ++k) y[6 * li + k] = q[k], y[6 * li + 3 + k] = w[k];
    }
    return;
  }
  if (p_.initial == NFoldPendulumParams::Initial::Paper) {
    // [P] 5.3: q_i = (cos(pi/4), 0, sin(pi/4)) computed as such (the two differ in the last bit,
    // as in the authors' MATLAB), w_i = (0, 1, 0).
    const double pi = 3.141592653589793;
    const double c4 = std::cos(pi / 4.0), s4 = std::sin(pi / 4.0);
    for (std::size_t li = 0; li < n; ++li) {
      double* c = y + 6 * li;
      c[0] = c4, c[1] = 0.0, c[2] = s4, c[3] = 0.0, c[4] = 1.0, c[5] = 0.0;
    }
    return;
  }
  if (p_.initial == NFoldPendulumParams::Initial::Authors) {
    // The authors' code of [P] 5.3 (initializeStat.m): every q_i = (1, 0, 0), w_i = 0.
    for (std::size_t li = 0; li < n; ++li) {
      double* c = y + 6 * li;
      c[0] = 1.0, c[1] = 0.0, c[2] = 0.0, c[3] = 0.0, c[4] = 0.0, c[5] = 0.0;
    }
    return;
  }
  par::for_each_index(n, threaded_, [&](std::size_t li) {
    const std::uint64_t link = off + li;
    double* q = y + 6 * li;
    double* w = q + 3;
    gaussian3(p_.seed, link, 0, q);
    const double nq = std::sqrt(dot3(q, q));
    for (int k = 0; k < 3; ++k) q[k] /= nq;
    gaussian3(p_.seed, link, 4, w);
    const double qw = dot3(q, w);
    for (int k = 0; k < 3; ++k) w[k] -= qw * q[k];
  });
}

// ---------------------------------------------------------------- O(N) vector field
void NFoldPendulum::exchange_halo(const double* y) {
  const int P = ctx_->size(), r = ctx_->rank();
  if (P == 1) return;
  const std::size_t n = layout_.local_size();
  const int prev = r > 0 ? r - 1 : MPI_PROC_NULL, next = r + 1 < P ? r + 1 : MPI_PROC_NULL;
  par::ScopedTimer timer(ctx_->timers(), "comm"), halo_timer(ctx_->timers(), "halo");
  // first q -> previous rank (its halo_next), last q -> next rank (its halo_prev)
  MPI_Sendrecv(y, 3, MPI_DOUBLE, prev, 101, halo_next_, 3, MPI_DOUBLE, next, 101, ctx_->comm(), MPI_STATUS_IGNORE);
  MPI_Sendrecv(y + 6 * (n - 1), 3, MPI_DOUBLE, next, 102, halo_prev_, 3, MPI_DOUBLE, prev, 102, ctx_->comm(),
               MPI_STATUS_IGNORE);
}

void NFoldPendulum::angular_accelerations(const double* y, double* h) { accelerations(y, h, nullptr); }

void NFoldPendulum::accelerations(const double* y, double* h, double* xi) {
  const std::size_t N = p_.N, off = layout_.local_items().begin;
  const double g = p_.gravity;
  exchange_halo(y);

  const ChainRows row{y, off, N, static_cast<long>(layout_.local_size()), g,
                      mass_.inverses.data(), mass_.inverses.size() == 1,
                      length_.values.data(), length_.inverses.data(), length_.values.size() == 1,
                      halo_prev_, halo_next_};

  // The second pass runs per block of the solve, while the block's links and tensions are in
  // cache (solve_blocks: no tension array, issue 27). Link li reads q_{li-1}, q_li, q_{li+1}.
  // xi may be y (vector_field in place: the fused RKMK stages keep f where the stage point
  // was): each block runs in increasing order with the q it overwrote carried to the next
  // link, and the q just outside every block are saved before any block starts. The same
  // operations on the same values either way.
  const par::Range lb = layout_.local_blocks();
  edge_q_.resize(6 * lb.size());
  for (std::size_t k = 0; k < lb.size(); ++k) {
    const par::Range r = layout_.block(lb.begin + k);
    std::copy_n(row.q_at(static_cast<long>(r.begin - off) - 1), 3, &edge_q_[6 * k]);
    std::copy_n(row.q_at(static_cast<long>(r.end - off)), 3, &edge_q_[6 * k + 3]);
  }
  solver_.solve_blocks(*ctx_, row, [&](std::size_t b, const double* tau) {
    const par::Range r = layout_.block(b);
    chain_block_fields(row, r.begin - off, r.end - off, tau, &edge_q_[6 * (b - lb.begin)], h, xi);
  });
}

void NFoldPendulum::algebra_from_accelerations(const double* y, const double* h, double* xi) const {
  const std::size_t n = layout_.local_size();
  par::for_each_index(n, threaded_, [&](std::size_t li) { link_algebra(y + 6 * li, h + 3 * li, xi + 6 * li); });
}

void NFoldPendulum::vector_field(double, const double* y, double* xi) {
  ++n_rhs_;
  par::ScopedTimer timer(ctx_->timers(), "rhs");
  if (p_.solver == NFoldPendulumParams::Solver::Dense) {
    h_.resize(3 * layout_.local_size());
    angular_accelerations_dense(y, h_.data());
    algebra_from_accelerations(y, h_.data(), xi);
  } else {
    accelerations(y, nullptr, xi);  // h_i stays in registers: f = (w_i, q_i x h_i) directly
  }
}

// ---------------------------------------------------------------- dense reference [P] 5.2
Eigen::MatrixXd NFoldPendulum::dense_matrix(const double* y) const {
  require_single_rank("the dense matrix R(q)");
  const std::size_t N = p_.N;
  const Eigen::Index n3 = static_cast<Eigen::Index>(3 * N);
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(n3, n3);
  std::vector<Mat3> hats(N);
  for (std::size_t i = 0; i < N; ++i) hats[i] = so3::hat(CMap3(y + 6 * i));
  for (std::size_t i = 0; i < N; ++i) {
    const Eigen::Index bi = static_cast<Eigen::Index>(3 * i);
    R.block<3, 3>(bi, bi) = inertia(i, i) * Mat3::Identity();  // R_ii = (sum_{j>=i} m_j) L_i^2 I3
    for (std::size_t j = i + 1; j < N; ++j) {
      const Eigen::Index bj = static_cast<Eigen::Index>(3 * j);
      const Mat3 Rij = inertia(i, j) * (hats[i].transpose() * hats[j]);  // M_ij q^_i^T q^_j, i < j
      R.block<3, 3>(bi, bj) = Rij;
      R.block<3, 3>(bj, bi) = Rij.transpose();  // R_ji = R_ij^T
    }
  }
  return R;
}

Eigen::VectorXd NFoldPendulum::dense_rhs(const double* y) const {
  require_single_rank("the dense right-hand side b");
  const std::size_t N = p_.N;
  Eigen::VectorXd b = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(3 * N));
  const Vec3 e3(0.0, 0.0, 1.0);
  for (std::size_t i = 0; i < N; ++i) {
    const Vec3 qi = CMap3(y + 6 * i);
    Vec3 bi = -(suffix_mass(i) * p_.gravity * length_.at(i)) * qi.cross(e3);
    for (std::size_t j = 0; j < N; ++j) {
      if (j == i) continue;
      const Vec3 qj = CMap3(y + 6 * j), wj = CMap3(y + 6 * j + 3);
      bi += (inertia(i, j) * wj.squaredNorm()) * qi.cross(qj);  // M_ij |w_j|^2 q^_i q_j
    }
    b.segment<3>(static_cast<Eigen::Index>(3 * i)) = bi;
  }
  return b;
}

void NFoldPendulum::angular_accelerations_dense(const double* y, double* h) const {
  const Eigen::MatrixXd R = dense_matrix(y);
  const Eigen::VectorXd b = dense_rhs(y);
  Eigen::Map<Eigen::VectorXd> out(h, static_cast<Eigen::Index>(3 * p_.N));
  Eigen::LLT<Eigen::MatrixXd> llt(R);
  if (llt.info() == Eigen::Success) {
    out = llt.solve(b);
    return;
  }
  // Off the sphere (classical_field = paper at RK stage points) R(q) is symmetric but need not
  // be definite: R_ij grows like |q_i||q_j|, R_ii does not. It stays invertible near (S^2)^N.
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(R);
  out = lu.solve(b);
  if (!out.allFinite()) throw NumericalError("nfold_pendulum: R(q) is singular");
}

// ---------------------------------------------------------------- classical baselines [P] 5.2
void NFoldPendulum::ambient_field(double t, const double* y, double* dy) {
  if (p_.classical_field == NFoldPendulumParams::ClassicalField::LieAlgebra) {
    Model::ambient_field(t, y, dy);
    return;
  }
  ++n_rhs_;
  par::ScopedTimer timer(ctx_->timers(), "rhs");
  h_.resize(3 * layout_.local_size());
  if (p_.solver == NFoldPendulumParams::Solver::Dense) angular_accelerations_dense(y, h_.data());
  else paper_accelerations(y, h_.data());
  const std::size_t n = layout_.local_size();
  for (std::size_t li = 0; li < n; ++li) {
    const double* q = y + 6 * li;
    cross3(q + 3, q, dy + 6 * li);  // q_i' = w_i x q_i
    std::copy_n(&h_[3 * li], 3, dy + 6 * li + 3);
  }
}

void NFoldPendulum::paper_accelerations(const double* y, double* h) {
  using M3 = Eigen::Matrix3d;
  using V3 = Eigen::Vector3d;
  const std::size_t N = p_.N, n = layout_.local_size(), off = layout_.local_items().begin;
  const double* Y = y;
  if (ctx_->size() > 1) {
    par::ScopedTimer timer(ctx_->timers(), "comm");
    chain_.resize(6 * N);
    std::vector<int> counts(static_cast<std::size_t>(ctx_->size())), displs(counts.size());
    for (int r = 0; r < ctx_->size(); ++r) {
      const par::Range items = layout_.rank_items(r);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(6 * items.size());
      displs[static_cast<std::size_t>(r)] = static_cast<int>(6 * items.begin);
    }
    MPI_Allgatherv(y, static_cast<int>(6 * n), MPI_DOUBLE, chain_.data(), counts.data(), displs.data(), MPI_DOUBLE,
                   ctx_->comm());
    Y = chain_.data();
  }
  elim_C_.resize(N);
  elim_y_.resize(N);
  // Block row i: lower z_{i-1} + D z_i + upper z_{i+1} = r_i with A_k = (1 + c_k) Pi_k - c_k I,
  // Pi_k = q_k q_k^T/|q_k|^2, c_k = S_k L_k (1 - |q_k|^2)/|q_k|^2 (so that Q_k = A_k z_k).
  auto A = [&](std::size_t k) {
    const V3 q(Y + 6 * k);
    const double qq = q.squaredNorm();
    const double c = suffix_mass(k) * length_.at(k) * (1.0 - qq) / qq;
    return M3((1.0 + c) / qq * (q * q.transpose()) - c * M3::Identity());
  };
  const V3 e3(0.0, 0.0, 1.0);
  M3 A_prev, A_cur = A(0);
  for (std::size_t i = 0; i < N; ++i) {
    const V3 q(Y + 6 * i), w(Y + 6 * i + 3);
    const double qq = q.squaredNorm(), L = length_.at(i);
    const M3 A_next = i + 1 < N ? A(i + 1) : M3::Zero();
    // D = A_i (1/m_i + 1/m_{i-1}) - L_i (I - Pi_i), upper = -A_{i+1}/m_i, lower = -A_{i-1}/m_{i-1}
    M3 D = A_cur * (mass_.inv(i) + (i > 0 ? mass_.inv(i - 1) : 0.0)) - L * (M3::Identity() - q * q.transpose() / qq);
    V3 r = (L * w.squaredNorm()) * q;
    if (i == 0) r -= p_.gravity * e3;
    if (i > 0) {
      const M3 lower = -mass_.inv(i - 1) * A_prev;
      D -= lower * elim_C_[i - 1];
      r -= lower * elim_y_[i - 1];
    }
    const Eigen::PartialPivLU<M3> lu(D);
    elim_C_[i] = lu.solve(M3(-mass_.inv(i) * A_next));
    elim_y_[i] = lu.solve(r);
    A_prev = A_cur;
    A_cur = A_next;
  }
  // Back substitution (z overwrites elim_y_), then w_i' = -q_i x z_i / |q_i|^2 for the local links.
  for (std::size_t i = N - 1; i-- > 0;) elim_y_[i] -= elim_C_[i] * elim_y_[i + 1];
  for (std::size_t li = 0; li < n; ++li) {
    const V3 q(Y + 6 * (off + li));
    Eigen::Map<V3>(h + 3 * li) = -q.cross(elim_y_[off + li]) / q.squaredNorm();
  }
}

// ---------------------------------------------------------------- SphereLagrangian
double NFoldPendulum::inertia(std::size_t i, std::size_t j) const {
  return suffix_mass(std::max(i, j)) * length_.at(i) * length_.at(j);
}

double NFoldPendulum::potential(const double* q) const {
  double V = 0.0;
  for (std::size_t i = 0; i < p_.N; ++i) V += suffix_mass(i) * p_.gravity * length_.at(i) * q[3 * i + 2];
  return V;
}

void NFoldPendulum::potential_gradient(const double*, double* dVdq) const {
  for (std::size_t i = 0; i < p_.N; ++i) {
    dVdq[3 * i] = 0.0;
    dVdq[3 * i + 1] = 0.0;
    dVdq[3 * i + 2] = suffix_mass(i) * p_.gravity * length_.at(i);
  }
}

// ---------------------------------------------------------------- prefix sums, observables
namespace {

// Runs fn(thread, li, X, V) for every local link, with X = bob position and V = bob velocity,
// computed as prefix sums over the virtual blocks: block totals, gathered, added in block
// order on every rank, then running sums inside each block starting from its offset.
template <class LengthFn, class Fn>
void chain_prefix(const par::BlockLayout& L, const par::Context& ctx, const double* y, bool threaded,
                  const LengthFn& length, Fn&& fn) {
  const par::Range lb = L.local_blocks();
  const std::size_t off = L.local_items().begin;
  const long nb = static_cast<long>(lb.size());
  std::vector<double> totals(6 * lb.size()), all(6 * L.blocks());
  par::for_each_index(nb, threaded, [&](long k) {
    const par::Range r = L.block(lb.begin + static_cast<std::size_t>(k));
    double acc[6] = {0, 0, 0, 0, 0, 0}, wxq[3];
    for (std::size_t i = r.begin; i < r.end; ++i) {
      const double* q = y + 6 * (i - off);
      const double Li = length(i);
      cross3(q + 3, q, wxq);
      for (int c = 0; c < 3; ++c) acc[c] += Li * q[c];
      for (int c = 0; c < 3; ++c) acc[3 + c] += Li * wxq[c];
    }
    std::copy_n(acc, 6, &totals[6 * static_cast<std::size_t>(k)]);
  });
  L.allgather(ctx, totals.data(), 6, all.data());
  // Exclusive prefix over blocks, sequential in block order (same on every rank).
  std::vector<double> offsets(6 * lb.size());
  double run[6] = {0, 0, 0, 0, 0, 0};
  for (std::size_t b = 0; b < lb.end; ++b) {
    if (b >= lb.begin) std::copy_n(run, 6, &offsets[6 * (b - lb.begin)]);
    for (int c = 0; c < 6; ++c) run[c] += all[6 * b + static_cast<std::size_t>(c)];
  }
  par::for_each_index(nb, threaded, [&](long k) {
    const par::Range r = L.block(lb.begin + static_cast<std::size_t>(k));
    double acc[6], wxq[3];
    std::copy_n(&offsets[6 * static_cast<std::size_t>(k)], 6, acc);
    const int t = omp_get_thread_num();
    for (std::size_t i = r.begin; i < r.end; ++i) {
      const double* q = y + 6 * (i - off);
      const double Li = length(i);
      cross3(q + 3, q, wxq);
      for (int c = 0; c < 3; ++c) acc[c] += Li * q[c];
      for (int c = 0; c < 3; ++c) acc[3 + c] += Li * wxq[c];
      fn(t, i - off, acc, acc + 3);
    }
  });
}

}  // namespace

void NFoldPendulum::prefix_sums(const double* y, double* X, double* V) const {
  chain_prefix(layout_, *ctx_, y, threaded_, [this](std::size_t i) { return length_.at(i); },
               [&](int, std::size_t li, const double* x, const double* v) {
                 if (X) std::copy_n(x, 3, X + 3 * li);
                 if (V) std::copy_n(v, 3, V + 3 * li);
               });
}

std::vector<std::string> NFoldPendulum::observable_names() const {
  return {"total_energy", "kinetic_energy", "potential_energy", "angular_momentum_z", "unit_norm_error",
          "tangency_error"};
}

void NFoldPendulum::observables(double, const double* y, Observables& out) {
  par::ScopedTimer timer(ctx_->timers(), "reduce");
  const int nt = threaded_ ? omp_get_max_threads() : 1;
  const std::size_t off = layout_.local_items().begin;
  const double g = p_.gravity;
  // Per thread: exact accumulators (deterministic mode) or plain sums, and the two maxima.
  std::vector<par::ExactSum> exact(ctx_->deterministic() ? static_cast<std::size_t>(3 * nt) : 0);
  std::vector<double> plain(static_cast<std::size_t>(3 * nt), 0.0), maxes(static_cast<std::size_t>(2 * nt), 0.0);
  const bool det = ctx_->deterministic();
  chain_prefix(layout_, *ctx_, y, threaded_, [this](std::size_t i) { return length_.at(i); },
               [&](int t, std::size_t li, const double* X, const double* V) {
                 const std::size_t i = off + li;
                 const double* q = y + 6 * li;
                 const double m = mass_.at(i);
                 const double T = 0.5 * m * dot3(V, V);                        // 1/2 m_i |x_i'|^2
                 const double U = suffix_mass(i) * g * length_.at(i) * q[2];  // [P] 5.2
                 const double Lz = m * (X[0] * V[1] - X[1] * V[0]);            // m_i (x_i x x_i')_z
                 const std::size_t tt = static_cast<std::size_t>(t);
                 if (det) {
                   exact[3 * tt].add(T);
                   exact[3 * tt + 1].add(U);
                   exact[3 * tt + 2].add(Lz);
                 } else {
                   plain[3 * tt] += T;
                   plain[3 * tt + 1] += U;
                   plain[3 * tt + 2] += Lz;
                 }
                 maxes[2 * tt] = nan_max(maxes[2 * tt], std::fabs(1.0 - dot3(q, q)));
                 maxes[2 * tt + 1] = nan_max(maxes[2 * tt + 1], std::fabs(dot3(q, q + 3)));
               });
  double sums[3];
  if (det) {
    for (int t = 1; t < nt; ++t)
      for (int c = 0; c < 3; ++c) exact[static_cast<std::size_t>(c)].add(exact[static_cast<std::size_t>(3 * t + c)]);
    ctx_->allreduce(std::span<par::ExactSum>(exact.data(), 3));
    for (int c = 0; c < 3; ++c) sums[c] = exact[static_cast<std::size_t>(c)].value();
  } else {
    for (int c = 0; c < 3; ++c) {
      double s = 0.0;
      for (int t = 0; t < nt; ++t) s += plain[static_cast<std::size_t>(3 * t + c)];
      sums[c] = ctx_->sum(s);
    }
  }
  double unit = 0.0, tang = 0.0;
  for (int t = 0; t < nt; ++t) {
    unit = nan_max(unit, maxes[static_cast<std::size_t>(2 * t)]);
    tang = nan_max(tang, maxes[static_cast<std::size_t>(2 * t + 1)]);
  }
  // MPI_MAX does not reliably propagate NaN: a non-finite state on any rank gives NaN here.
  const bool finite = std::isfinite(unit) && std::isfinite(tang);
  const bool all_finite = ctx_->max(finite ? 0.0 : 1.0) == 0.0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.set("total_energy", sums[0] + sums[1]);
  out.set("kinetic_energy", sums[0]);
  out.set("potential_energy", sums[1]);
  out.set("angular_momentum_z", sums[2]);
  out.set("unit_norm_error", all_finite ? ctx_->max(unit) : nan);
  out.set("tangency_error", all_finite ? ctx_->max(tang) : nan);
}

ModelCapabilities NFoldPendulum::capabilities() const {
  ModelCapabilities c;
  c.sphere_lagrangian = true;
  c.vector_field_in_place = true;  // accelerations(): chunks with the overwritten q carried
  return c;
}

std::vector<TrajectoryField> NFoldPendulum::trajectory_fields() const {
  return {{"position", 3, "m", "bob positions x_i = sum_{k<=i} L_k q_k (pivot at 0)"},
          {"velocity", 3, "m/s", "bob velocities x_i' = sum_{k<=i} L_k w_k x q_k"},
          {"direction", 3, "1", "link directions q_i in S^2"},
          {"angular_velocity", 3, "rad/s", "link angular velocities w_i (q_i.w_i = 0)"}};
}

void NFoldPendulum::trajectory_field(const std::string& name, const double* y, double* out) const {
  const std::size_t n = layout_.local_size();
  if (name == "position") {
    prefix_sums(y, out, nullptr);
  } else if (name == "velocity") {
    prefix_sums(y, nullptr, out);
  } else if (name == "direction" || name == "angular_velocity") {
    const std::size_t o = name == "direction" ? 0 : 3;
    for (std::size_t li = 0; li < n; ++li) std::copy_n(y + 6 * li + o, 3, out + 3 * li);
  } else {
    throw std::invalid_argument("nfold_pendulum has no trajectory field " + quote(name));
  }
}

LIEBENCH_REGISTER(ModelEntry, ModelEntry{"nfold_pendulum",
                                         "N-fold spherical pendulum on (TS^2)^N, O(N) right-hand side (tensions), "
                                         "distributed over virtual blocks",
                                         "[P] 5, [S], [D]", &NFoldPendulum::create, &NFoldPendulum::parse})

}  // namespace lie
