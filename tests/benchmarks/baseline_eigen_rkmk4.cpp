// Baseline for issue 16 (target 2): a hand-written fixed-size Eigen RKMK4 loop for the N-fold
// pendulum (N = 2, the double pendulum, and N = 20), from the same equations as the suite:
// SE(3)^N acting on (TS^2)^N by the restricted Ad-action [P] 5.1,
//   exp(u, v).(q, w) = (R q, R w + (J_l(u) v) x R q),  R = exp(u) (Rodrigues),
//   f(q, w) = (w_i, q_i x h_i)_i  with h from the O(N) tension route ([P] 5.2,
//   /work/shared/notes/chain-tensions.md),
// classical RK4 tableau ([K] Table 3.1) in RKMK form [P] 2.1 with dexpinv truncated after two
// commutators (u - [u, v]/2 + [u, [u, v]]/12: order min(4, 2 + 2) = 4, the usual hand-written
// choice). Everything on the stack, sizes known at compile time. Not a test.
//   baseline_eigen_rkmk4 --N=2|20 [--dt=1e-3] [--min_time=1] [--check_steps=200]
// Prints one line of key=value pairs: seconds per RKMK4 step and, as the independent check, the
// largest difference of the state after check_steps steps from the suite's rkmk4 with the same
// truncated dexpinv (key dexpinv = 2) from the same initial state (the suite's random state).
#include <mpi.h>

#include <Eigen/Core>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/nfold_pendulum.hpp"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <int N>
struct EigenRkmk4 {
  using Mat = Eigen::Matrix<double, 6, N>;  // column i: (q_i, w_i) or (u_i, v_i); same layout as the suite
  using V3 = Eigen::Vector3d;
  double m = 1, L = 1, g = 9.81;  // the suite's defaults (uniform links)

  // f(y) = (w_i, q_i x h_i): tension solve (Thomas), then the accelerations.
  Mat field(const Mat& y) const {
    std::array<double, N> cp{}, rp{}, tau{};
    const double im = 1.0 / m;
    double e_prev = 0;
    for (int i = 0; i < N; ++i) {
      const V3 q = y.template block<3, 1>(0, i), w = y.template block<3, 1>(3, i);
      double r = L * w.cross(q).squaredNorm();
      double d = im;
      if (i == 0) r -= g * q.z();
      else d += im;
      const double e = i + 1 < N ? -q.dot(y.template block<3, 1>(0, i + 1)) * im : 0.0;
      const double den = i == 0 ? d : d - e_prev * cp[i - 1];
      cp[i] = e / den;
      rp[i] = (i == 0 ? r : r - e_prev * rp[i - 1]) / den;
      e_prev = e;
    }
    tau[N - 1] = rp[N - 1];
    for (int i = N - 2; i >= 0; --i) tau[i] = rp[i] - cp[i] * tau[i + 1];
    Mat f;
    for (int i = 0; i < N; ++i) {
      const V3 q = y.template block<3, 1>(0, i);
      V3 a = V3::Zero();
      if (i + 1 < N) a += tau[i + 1] * im * q.cross(y.template block<3, 1>(0, i + 1));
      if (i == 0) a -= g * q.cross(V3::UnitZ());
      else a -= tau[i - 1] * im * V3(y.template block<3, 1>(0, i - 1)).cross(q);
      const V3 h = a / L;
      f.template block<3, 1>(0, i) = y.template block<3, 1>(3, i);
      f.template block<3, 1>(3, i) = q.cross(h);
    }
    return f;
  }

  // exp(u).y per link (Rodrigues; the coefficient functions by Taylor series at small angles).
  static Mat exp_act(const Mat& u, const Mat& y) {
    Mat out;
    for (int i = 0; i < N; ++i) {
      const V3 a = u.template block<3, 1>(0, i), b = u.template block<3, 1>(3, i);
      const V3 q = y.template block<3, 1>(0, i), w = y.template block<3, 1>(3, i);
      const double t = a.norm(), t2 = t * t;
      double A, B, C;  // sin t/t, (1 - cos t)/t^2, (t - sin t)/t^3
      if (t < 0.1) {
        A = 1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72)));
        B = 0.5 * (1 - t2 / 12 * (1 - t2 / 30 * (1 - t2 / 56 * (1 - t2 / 90))));
        C = (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72 * (1 - t2 / 110)))) / 6;
      } else {
        const double s = std::sin(t), sh = std::sin(0.5 * t);
        A = s / t;
        B = 2 * sh * sh / t2;
        C = (t - s) / (t2 * t);
      }
      const V3 axq = a.cross(q), axw = a.cross(w), axb = a.cross(b);
      const V3 Rq = q + A * axq + B * a.cross(axq);
      const V3 Rw = w + A * axw + B * a.cross(axw);
      const V3 r = b + B * axb + C * a.cross(axb);
      out.template block<3, 1>(0, i) = Rq;
      out.template block<3, 1>(3, i) = Rw + r.cross(Rq);
    }
    return out;
  }

  // [(A, a), (B, b)] = (A x B, A x b - B x a) per link
  static Mat bracket(const Mat& x, const Mat& y) {
    Mat out;
    for (int i = 0; i < N; ++i) {
      const V3 A = x.template block<3, 1>(0, i), a = x.template block<3, 1>(3, i);
      const V3 B = y.template block<3, 1>(0, i), b = y.template block<3, 1>(3, i);
      out.template block<3, 1>(0, i) = A.cross(B);
      out.template block<3, 1>(3, i) = A.cross(b) - B.cross(a);
    }
    return out;
  }
  static Mat dexpinv2(const Mat& u, const Mat& v) {
    const Mat uv = bracket(u, v);
    return v - 0.5 * uv + (1.0 / 12.0) * bracket(u, uv);
  }

  void step(Mat& y, double h) const {
    const Mat k1 = field(y);
    Mat u = (0.5 * h) * k1;
    const Mat k2 = dexpinv2(u, field(exp_act(u, y)));
    u = (0.5 * h) * k2;
    const Mat k3 = dexpinv2(u, field(exp_act(u, y)));
    u = h * k3;
    const Mat k4 = dexpinv2(u, field(exp_act(u, y)));
    y = exp_act((h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4), y);
  }
};

template <int N>
int run(double dt, double min_time, long check_steps) {
  using B = EigenRkmk4<N>;
  B b;
  typename B::Mat y0;
  double check_diff = 0;
  {  // the suite: same initial state, rkmk4 with dexpinv = 2, check_steps steps
    lie::par::Context ctx(MPI_COMM_SELF);
    const lie::Config cfg = lie::Config::from_pairs(
        {{"model", "nfold_pendulum"}, {"nfold_pendulum.N", std::to_string(N)}, {"nfold_pendulum.initial", "random"},
         {"dexpinv", "2"}});
    auto model = lie::make_model(cfg, ctx);
    const auto* chain = dynamic_cast<const lie::NFoldPendulum*>(model.get());
    if (chain->mass(0) != b.m || chain->length(0) != b.L || chain->params().gravity != b.g) {
      std::fprintf(stderr, "baseline_eigen_rkmk4: the suite's default m, L, g changed; update EigenRkmk4\n");
      return 1;
    }
    std::vector<double> y(model->space().state_size());
    model->initial_state(y.data());
    std::copy(y.begin(), y.end(), y0.data());
    auto st = lie::make_stepper("rkmk4", cfg, *model);
    st->bind(*model, ctx);
    lie::FixedStepOptions fo;
    fo.h = dt;
    fo.steps = static_cast<std::uint64_t>(check_steps);
    lie::integrate_fixed(*st, y.data(), fo, nullptr);
    typename B::Mat yb = y0;
    for (long k = 0; k < check_steps; ++k) b.step(yb, dt);
    for (int k = 0; k < 6 * N; ++k) check_diff = std::max(check_diff, std::fabs(yb.data()[k] - y[static_cast<std::size_t>(k)]));
  }
  typename B::Mat y = y0;
  long batch = 1, total = 0;
  double elapsed = 0;
  const double t0 = now();
  while (elapsed < min_time) {
    for (long k = 0; k < batch; ++k) b.step(y, dt);
    total += batch;
    elapsed = now() - t0;
    if (elapsed < min_time / 10) batch *= 2;
  }
  double sum = 0;
  for (int k = 0; k < 6 * N; ++k) sum += y.data()[k];  // keeps the loop observable
  std::printf("program=eigen_rkmk4 N=%d dt=%g steps=%ld s_per_step=%.6e ns_per_link_step=%.4g check_steps=%ld "
              "max_diff_vs_suite_rkmk4_dexpinv2=%.3e state_sum=%.6g\n",
              N, dt, total, elapsed / static_cast<double>(total), 1e9 * elapsed / static_cast<double>(total) / N,
              check_steps, check_diff, sum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::map<std::string, std::string> opt = {{"N", "2"}, {"dt", "1e-3"}, {"min_time", "1"}, {"check_steps", "200"}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos || !opt.count(a.substr(2, eq - 2))) {
      std::fprintf(stderr, "baseline_eigen_rkmk4: unknown argument '%s' (--N= --dt= --min_time= --check_steps=)\n",
                   a.c_str());
      MPI_Finalize();
      return 2;
    }
    opt[a.substr(2, eq - 2)] = a.substr(eq + 1);
  }
  double dt = 0, min_time = 0;
  long check_steps = 0;
  try {
    dt = std::stod(opt["dt"]);
    min_time = std::stod(opt["min_time"]);
    check_steps = std::stol(opt["check_steps"]);
  } catch (const std::exception&) {
    std::fprintf(stderr, "baseline_eigen_rkmk4: --dt=%s --min_time=%s --check_steps=%s: give numbers\n",
                 opt["dt"].c_str(), opt["min_time"].c_str(), opt["check_steps"].c_str());
    MPI_Finalize();
    return 2;
  }
  int rc = 2;
  if (opt["N"] == "2") rc = run<2>(dt, min_time, check_steps);
  else if (opt["N"] == "20") rc = run<20>(dt, min_time, check_steps);
  else std::fprintf(stderr, "baseline_eigen_rkmk4: N=%s; compiled sizes are N = 2 and N = 20\n", opt["N"].c_str());
  MPI_Finalize();
  return rc;
}
