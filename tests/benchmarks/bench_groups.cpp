// Group kernels of the suite (src/groups) against a straightforward Eigen implementation
// (issue 16, target 5). Not a test. For SO(3) and SE(3):
//   exp      suite: so3::exp (Rodrigues) / se3::exp        Eigen: MatrixExponential of hat(u), 3x3 / 4x4
//   log      suite: so3::log / se3::log                    Eigen: MatrixLogarithm of R (3x3) / g (4x4), vee
//   dexpinv  suite: so3::dexpinv / se3::dexpinv (exact,    Eigen: Bernoulli series sum_k B_k/k! ad_u^k v with
//            closed forms of [P] 2.2, 2.3)                 the 3x3 / 6x6 ad matrix, summed until a term is
//                                                          below 1e-17 of the sum (same accuracy)
//   action   on TS^2: SO(3) (q, w) -> (R q, R w) by so3::exp_apply; SE(3) by factors::SE3OnTS2::exp_act
//            ([P] 5.1); Eigen: the matrix exponential, then the same products.
// Inputs: random axes with angles uniform in [0, pi) ("random"), in [1e-9, 1e-3] ("near0") and
// in [pi - 1e-3, pi - 1e-9] ("nearpi"); translations uniform in [-1, 1]^3. Accuracy: the largest
// difference between the two implementations, relative to the largest entry of the result.
// Timing: after one untimed pass over the inputs, ROUNDS rounds alternating suite and Eigen over
// the same random inputs (each round all inputs at least once), median seconds per call of each
// and their ratio. One line of key=value pairs per kernel.
//   bench_groups [--rounds=5] [--min_time=0.2] [--samples=4096]   (--help lists the options)
//
// Flops per call of the suite's kernels, counted by hand from the source expressions (each +, -,
// *, / and sqrt counts 1; Eigen's fixed-size 3x3 product 45, cross product 9, norm 6), plus the
// number of scalar coefficient functions ("fn": below t = 2.5 an even Horner polynomial of 8
// terms (16 flops) for t < 0.25 and 13-22 terms (26-44 flops) above, one atan2 in log, sin/cos/tan
// above 2.5). The Eigen baseline's count depends on the norm (Pade degree 3-13 with scaling and
// squaring; each degree costs several matrix products and one LU solve), so only its time is given.
#include <mpi.h>

#include <Eigen/Core>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "groups/factors.hpp"
#include "groups/se3.hpp"
#include "groups/so3.hpp"

using namespace lie;

namespace {

using Mat4 = Eigen::Matrix4d;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// ---- the Eigen baseline ------------------------------------------------------------
Mat3 hat3(const Vec3& v) {
  Mat3 m;
  m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return m;
}
Vec3 vee3(const Mat3& m) { return Vec3(m(2, 1), m(0, 2), m(1, 0)); }
Mat4 hat4(const Vec6& x) {
  Mat4 m = Mat4::Zero();
  m.topLeftCorner<3, 3>() = hat3(x.head<3>());
  m.topRightCorner<3, 1>() = x.tail<3>();
  return m;
}

// B_k / k! for the series z/(e^z - 1): c_0 = 1, c_1 = -1/2, c_2k = (-1)^(k+1) 2 zeta(2k) / (2 pi)^(2k),
// odd k > 1 vanish. zeta(2k) summed in long double (exact values for k = 1, 2).
std::vector<double> bernoulli_over_factorial(int K) {
  std::vector<double> c(static_cast<std::size_t>(K) + 1, 0.0);
  c[0] = 1.0;
  c[1] = -0.5;
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int k = 1; 2 * k <= K; ++k) {
    long double zeta;
    if (k == 1) zeta = pi * pi / 6;
    else if (k == 2) zeta = pi * pi * pi * pi / 90;
    else {
      zeta = 0;
      for (int n = 4000; n >= 1; --n) zeta += std::pow(static_cast<long double>(n), -2.0L * k);
    }
    const long double v = 2 * zeta / std::pow(2 * pi, 2.0L * k);
    c[static_cast<std::size_t>(2 * k)] = static_cast<double>(k % 2 == 1 ? v : -v);
  }
  return c;
}
const std::vector<double> kBern = bernoulli_over_factorial(400);

// dexpinv_u(v) = sum_k B_k/k! ad_u^k v, terms added until one is below 1e-17 of the sum.
template <int D>
Eigen::Matrix<double, D, 1> bernoulli_dexpinv(const Eigen::Matrix<double, D, D>& ad, const Eigen::Matrix<double, D, 1>& v) {
  Eigen::Matrix<double, D, 1> p = ad * v, sum = v - 0.5 * p;
  for (std::size_t k = 2; k < kBern.size(); ++k) {
    p = ad * p;
    if (k % 2) continue;
    const Eigen::Matrix<double, D, 1> term = kBern[k] * p;
    sum += term;
    if (term.norm() < 1e-17 * sum.norm()) break;
  }
  return sum;
}
Mat6 ad6(const Vec6& x) {
  Mat6 m = Mat6::Zero();
  m.topLeftCorner<3, 3>() = hat3(x.head<3>());
  m.bottomRightCorner<3, 3>() = hat3(x.head<3>());
  m.bottomLeftCorner<3, 3>() = hat3(x.tail<3>());
  return m;
}

// ---- inputs --------------------------------------------------------------------------
struct Inputs {
  std::vector<Vec6> x, y;  // x: algebra elements (rotation part with the chosen angle); y: second argument / (q, w)
};
Inputs make_inputs(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss;
  std::uniform_real_distribution<double> uni(0, 1), box(-1, 1);
  Inputs in;
  for (std::size_t i = 0; i < n; ++i) {
    Vec3 axis(gauss(rng), gauss(rng), gauss(rng));
    axis.normalize();
    const double angle = lo + (hi - lo) * uni(rng);
    Vec6 x;
    x << angle * axis, box(rng), box(rng), box(rng);
    Vec3 q(gauss(rng), gauss(rng), gauss(rng));
    q.normalize();
    Vec3 w(box(rng), box(rng), box(rng));
    w -= w.dot(q) * q;  // (q, w) in TS^2
    Vec6 y;
    y << q, w;
    in.x.push_back(x);
    in.y.push_back(y);
  }
  return in;
}

// A kernel maps input i to a vector of results (for the accuracy check) and is timed by
// summing one entry into a sink.
struct Kernel {
  std::string group, op;
  int flops;
  int fns;
  std::function<Eigen::VectorXd(const Vec6&, const Vec6&)> suite, eigen;
};

Eigen::VectorXd flat(const Mat3& m) { return Eigen::Map<const Eigen::VectorXd>(m.data(), 9); }
Eigen::VectorXd flat(const se3::Element& g) {
  Eigen::VectorXd v(12);
  v << Eigen::Map<const Eigen::VectorXd>(g.R.data(), 9), g.r;
  return v;
}
Eigen::VectorXd flat4(const Mat4& m) {
  Eigen::VectorXd v(12);
  const Mat3 R = m.topLeftCorner<3, 3>();
  v << Eigen::Map<const Eigen::VectorXd>(R.data(), 9), m.topRightCorner<3, 1>();
  return v;
}

std::vector<Kernel> kernels() {
  std::vector<Kernel> k;
  // SO(3)
  k.push_back({"SO3", "exp", 37, 2, [](const Vec6& x, const Vec6&) { return flat(so3::exp(x.head<3>())); },
               [](const Vec6& x, const Vec6&) { return flat(Mat3(hat3(x.head<3>()).exp())); }});
  k.push_back({"SO3", "log", 21, 1, [](const Vec6& x, const Vec6&) {
                 const Mat3 R = so3::exp(x.head<3>());
                 return Eigen::VectorXd(so3::log(R));
               },
               [](const Vec6& x, const Vec6&) {
                 const Mat3 R = so3::exp(x.head<3>());
                 return Eigen::VectorXd(vee3(Mat3(R.log())));
               }});
  k.push_back({"SO3", "dexpinv", 36, 1,
               [](const Vec6& x, const Vec6& y) { return Eigen::VectorXd(so3::dexpinv(Vec3(x.head<3>()), Vec3(y.tail<3>()))); },
               [](const Vec6& x, const Vec6& y) {
                 return Eigen::VectorXd(bernoulli_dexpinv<3>(hat3(x.head<3>()), Vec3(y.tail<3>())));
               }});
  k.push_back({"SO3", "action_TS2", 66, 2,
               [](const Vec6& x, const Vec6& y) {
                 Eigen::VectorXd o(6);
                 o << so3::exp_apply(x.head<3>(), y.head<3>()), so3::exp_apply(x.head<3>(), y.tail<3>());
                 return o;
               },
               [](const Vec6& x, const Vec6& y) {
                 const Mat3 R = hat3(x.head<3>()).exp();
                 Eigen::VectorXd o(6);
                 o << R * y.head<3>(), R * y.tail<3>();
                 return o;
               }});
  // SE(3)
  k.push_back({"SE3", "exp", 73, 4, [](const Vec6& x, const Vec6&) { return flat(se3::exp(x)); },
               [](const Vec6& x, const Vec6&) { return flat4(Mat4(hat4(x).exp())); }});
  k.push_back({"SE3", "log", 57, 2, [](const Vec6& x, const Vec6&) { return Eigen::VectorXd(se3::log(se3::exp(x))); },
               [](const Vec6& x, const Vec6&) {
                 const se3::Element g = se3::exp(x);
                 const Mat4 L = se3::matrix(g).log();
                 Vec6 v;
                 v << vee3(L.topLeftCorner<3, 3>()), L.topRightCorner<3, 1>();
                 return Eigen::VectorXd(v);
               }});
  k.push_back({"SE3", "dexpinv", 127, 2, [](const Vec6& x, const Vec6& y) { return Eigen::VectorXd(se3::dexpinv(x, y)); },
               [](const Vec6& x, const Vec6& y) { return Eigen::VectorXd(bernoulli_dexpinv<6>(ad6(x), y)); }});
  k.push_back({"SE3", "action_TS2", 108, 3,
               [](const Vec6& x, const Vec6& y) {
                 Vec6 o;
                 factors::SE3OnTS2::exp_act(x.data(), y.data(), o.data());
                 return Eigen::VectorXd(o);
               },
               [](const Vec6& x, const Vec6& y) {
                 const Mat4 E = hat4(x).exp();
                 const Mat3 R = E.topLeftCorner<3, 3>();
                 const Vec3 r = E.topRightCorner<3, 1>();
                 const Vec3 Rq = R * y.head<3>();
                 Eigen::VectorXd o(6);
                 o << Rq, R * y.tail<3>() + r.cross(Rq);
                 return o;
               }});
  return k;
}

// For log: the input was exp(x) with |x| < pi, so x itself is the answer; the largest error of
// each implementation against it, relative to |x| (exp's rounding included, same for both).
std::pair<double, double> log_errors(const Kernel& k, const Inputs& in) {
  double es = 0, ee = 0;
  for (std::size_t i = 0; i < in.x.size(); ++i) {
    const Eigen::VectorXd x = k.group == "SO3" ? Eigen::VectorXd(in.x[i].head<3>()) : Eigen::VectorXd(in.x[i]);
    es = std::max(es, (k.suite(in.x[i], in.y[i]) - x).lpNorm<Eigen::Infinity>() / x.lpNorm<Eigen::Infinity>());
    ee = std::max(ee, (k.eigen(in.x[i], in.y[i]) - x).lpNorm<Eigen::Infinity>() / x.lpNorm<Eigen::Infinity>());
  }
  return {es, ee};
}

double max_rel_diff(const Kernel& k, const Inputs& in) {
  double d = 0;
  for (std::size_t i = 0; i < in.x.size(); ++i) {
    const Eigen::VectorXd a = k.suite(in.x[i], in.y[i]), b = k.eigen(in.x[i], in.y[i]);
    d = std::max(d, (a - b).lpNorm<Eigen::Infinity>() / std::max(b.lpNorm<Eigen::Infinity>(), 1e-300));
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::Args args("bench_groups",
                   "The suite's SO(3)/SE(3) kernels (exp, log, dexpinv, action on TS^2) against Eigen's matrix\n"
                   "functions: median seconds per call of each over alternating rounds, flops, largest differences;\n"
                   "one line of key=value pairs per kernel.",
                   {{"rounds", bench::Kind::Int, "5", "rounds alternating suite and Eigen (>= 1; medians over them)"},
                    {"min_time", bench::Kind::Real, "0.2",
                     "seconds of timing per kernel and implementation, over all rounds (> 0)"},
                    {"samples", bench::Kind::Int, "4096",
                     "random inputs (>= 4; a quarter as many near 0 and near pi)"}});
  if (const int rc = args.parse(argc, argv, true); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  const int rounds = static_cast<int>(std::min(args.integer("rounds"), 1000000L));
  const double min_time = args.real("min_time");
  const std::size_t samples = static_cast<std::size_t>(args.integer("samples"));
  if (rounds < 1 || samples < 4 || !(min_time > 0)) {
    args.refuse("--rounds=" + args.text("rounds") + " --samples=" + args.text("samples") + " --min_time=" +
                    args.text("min_time") + ": give rounds >= 1, samples >= 4, min_time > 0",
                true);
    MPI_Finalize();
    return 2;
  }
  const double pi = 3.14159265358979323846;
  const Inputs random = make_inputs(samples, 0.0, pi, 1), near0 = make_inputs(samples / 4, 1e-9, 1e-3, 2),
               nearpi = make_inputs(samples / 4, pi - 1e-3, pi - 1e-9, 3);

  // The log kernels take exp(x) as input; to time log alone, the group elements are precomputed.
  std::vector<Mat3> R(samples);
  std::vector<se3::Element> G(samples);
  std::vector<Mat4> G4(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    R[i] = so3::exp(random.x[i].head<3>());
    G[i] = se3::exp(random.x[i]);
    G4[i] = se3::matrix(G[i]);
  }

  // Timed bodies: plain lambdas returning one entry (no allocation, inlined); the log kernels
  // on precomputed group elements, the others on the random inputs.
  const auto& X = random.x;
  const auto& Y = random.y;
  auto report = [&](const Kernel& k, auto&& fs, auto&& fe) {
    auto time_one = [&](auto&& f, double& sink) {
      long calls = 0;
      const double t0 = bench::now();
      double el = 0;
      while (el < min_time / rounds) {
        for (std::size_t i = 0; i < samples; ++i) sink += f(i);
        calls += static_cast<long>(samples);
        el = bench::now() - t0;
      }
      return el / static_cast<double>(calls);
    };
    std::vector<double> s, e;
    double sink = 0;
    for (std::size_t i = 0; i < samples; ++i) sink += fs(i) + fe(i);  // untimed warm-up pass
    for (int r = 0; r < rounds; ++r) {  // alternating suite and Eigen
      s.push_back(time_one(fs, sink));
      e.push_back(time_one(fe, sink));
    }
    std::sort(s.begin(), s.end());
    std::sort(e.begin(), e.end());
    const double ms = s[s.size() / 2], me = e[e.size() / 2];
    std::printf("program=bench_groups group=%s op=%s suite_s_per_call=%.4e eigen_s_per_call=%.4e speedup=%.4g "
                "suite_calls_per_s=%.4e eigen_calls_per_s=%.4e suite_flops=%d suite_coef_fns=%d suite_gflops=%.3g "
                "maxreldiff_random=%.2e maxreldiff_near0=%.2e maxreldiff_nearpi=%.2e sink=%.3g\n",
                k.group.c_str(), k.op.c_str(), ms, me, me / ms, 1 / ms, 1 / me, k.flops, k.fns, 1e-9 * k.flops / ms,
                max_rel_diff(k, random), max_rel_diff(k, near0), max_rel_diff(k, nearpi), sink);
    if (k.op == "log") {
      double es = 0, ee = 0;
      for (const Inputs* in : {&random, &near0, &nearpi}) {
        const auto [a, b] = log_errors(k, *in);
        es = std::max(es, a);
        ee = std::max(ee, b);
      }
      std::printf("program=bench_groups_log_accuracy group=%s op=log suite_maxrelerr_vs_input=%.2e eigen_maxrelerr_vs_input=%.2e\n",
                  k.group.c_str(), es, ee);
    }
    std::fflush(stdout);
  };
  const std::vector<Kernel> ks = kernels();
  report(ks[0], [&](std::size_t i) { return so3::exp(Vec3(X[i].head<3>()))(0, 1); },
         [&](std::size_t i) { return Mat3(hat3(X[i].head<3>()).exp())(0, 1); });
  report(ks[1], [&](std::size_t i) { return so3::log(R[i])(0); }, [&](std::size_t i) { return Mat3(R[i].log())(2, 1); });
  report(ks[2], [&](std::size_t i) { return so3::dexpinv(Vec3(X[i].head<3>()), Vec3(Y[i].tail<3>()))(0); },
         [&](std::size_t i) { return bernoulli_dexpinv<3>(hat3(X[i].head<3>()), Vec3(Y[i].tail<3>()))(0); });
  report(ks[3],
         [&](std::size_t i) {
           const Vec3 u = X[i].head<3>();
           return so3::exp_apply(u, Vec3(Y[i].head<3>()))(0) + so3::exp_apply(u, Vec3(Y[i].tail<3>()))(1);
         },
         [&](std::size_t i) {
           const Mat3 Rm = hat3(X[i].head<3>()).exp();
           return (Rm * Y[i].head<3>())(0) + (Rm * Y[i].tail<3>())(1);
         });
  report(ks[4], [&](std::size_t i) { return se3::exp(X[i]).r(0); },
         [&](std::size_t i) { return Mat4(hat4(X[i]).exp())(0, 3); });
  report(ks[5], [&](std::size_t i) { return se3::log(G[i])(3); }, [&](std::size_t i) { return Mat4(G4[i].log())(0, 3); });
  report(ks[6], [&](std::size_t i) { return se3::dexpinv(X[i], Y[i])(3); },
         [&](std::size_t i) { return bernoulli_dexpinv<6>(ad6(X[i]), Y[i])(3); });
  report(ks[7],
         [&](std::size_t i) {
           Vec6 o;
           factors::SE3OnTS2::exp_act(X[i].data(), Y[i].data(), o.data());
           return o(3);
         },
         [&](std::size_t i) {
           const Mat4 E = hat4(X[i]).exp();
           const Mat3 Rm = E.topLeftCorner<3, 3>();
           const Vec3 r = E.topRightCorner<3, 1>();
           const Vec3 Rq = Rm * Y[i].head<3>();
           return (Rm * Y[i].tail<3>() + r.cross(Rq))(0);
         });
  MPI_Finalize();
  return 0;
}
