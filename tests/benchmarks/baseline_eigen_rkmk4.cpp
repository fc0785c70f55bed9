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
//       [--max_energy_error=1e-3]   (--help lists the options)
// Prints one line of key=value pairs: seconds per RKMK4 step and, as the independent check, the
// largest difference of the state after check_steps steps from the suite's rkmk4 with the same
// truncated dexpinv (key dexpinv = 2) from the same initial state (the suite's random state).
// What is timed (bench_steady.hpp): after one untimed step, batches of steps until min_time
// seconds and at least 3 steps, the state put back to the initial one (untimed) every 1000 steps
// (t <= 1 at h = 1e-3). The largest relative energy error at those points and at the end must be
// finite and at most --max_energy_error, else the time fields say "failed" and the exit status is 3.
#include <mpi.h>

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "baseline_pendulum_flat.hpp"
#include "bench_args.hpp"
#include "bench_steady.hpp"
#include "io/config.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/nfold_pendulum.hpp"

namespace {

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
int run(double dt, double min_time, long check_steps, double max_error) {
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
    for (int k = 0; k < 6 * N; ++k)  // (NaN kept: a diverged check never reads as agreement)
      check_diff = bench::worse(check_diff, std::fabs(yb.data()[k] - y[static_cast<std::size_t>(k)]));
  }
  // The flat chain's energy (baseline_pendulum_flat.hpp; same layout, 6 doubles per link).
  const baseline::FlatChain flat(N, std::vector<double>(N, b.m), std::vector<double>(N, b.L), b.g);
  const double E0 = flat.energy(y0.data());
  double err = 0;
  typename B::Mat y = y0;
  const bench::Timing t = bench::time_calls([&] { b.step(y, dt); }, min_time, 1, 1000, [&] {
    err = bench::worse(err, bench::energy_error(E0, flat.energy(y.data())));
    y = y0;
  });
  err = bench::worse(err, bench::energy_error(E0, flat.energy(y.data())));
  const bool ok = bench::energy_ok(err, max_error);
  double sum = 0;
  for (int k = 0; k < 6 * N; ++k) sum += y.data()[k];  // keeps the loop observable
  char s_step[32] = "failed", ns_link[32] = "failed";
  if (ok) {
    std::snprintf(s_step, sizeof s_step, "%.6e", t.seconds_per_call);
    std::snprintf(ns_link, sizeof ns_link, "%.4g", 1e9 * t.seconds_per_call / N);
  }
  std::printf("program=eigen_rkmk4 N=%d dt=%g status=%s untimed_steps=1 steps=%ld s_per_step=%s ns_per_link_step=%s "
              "check_steps=%ld max_diff_vs_suite_rkmk4_dexpinv2=%.3e energy0=%.17g rel_energy_error=%.3e "
              "max_energy_error=%g state_sum=%.6g\n",
              N, dt, ok ? "ok" : "failed", t.calls, s_step, ns_link, check_steps, check_diff, E0, err, max_error, sum);
  std::fflush(stdout);
  if (!ok) {
    std::fprintf(stderr,
                 "baseline_eigen_rkmk4: relative energy error %.3e (largest over the steps of dt = %g) exceeds "
                 "--max_energy_error=%g: no time reported; take a smaller --dt\n",
                 err, dt, max_error);
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bench::Args args("baseline_eigen_rkmk4",
                   "A hand-written fixed-size Eigen RKMK4 loop for the N-fold pendulum (N = 2 or 20, the suite's\n"
                   "random state): seconds per step, the difference from the suite's rkmk4 (dexpinv = 2) after\n"
                   "check_steps steps, the energy error; one line of key=value pairs.",
                   {{"N", bench::Kind::Int, "2", "links: 2 or 20 (the compiled sizes)"},
                    {"dt", bench::Kind::Real, "1e-3", "RKMK4 step"},
                    {"min_time", bench::Kind::Real, "1", "seconds of timed steps at least (and 3 steps at least)"},
                    {"check_steps", bench::Kind::Int, "200", "steps of the comparison with the suite's rkmk4"},
                    {"max_energy_error", bench::Kind::Real, "1e-3",
                     "largest relative energy error (within 1000 steps) for which a time is reported"}});
  if (const int rc = args.parse(argc, argv, true); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  const double dt = args.real("dt"), min_time = args.real("min_time"), max_error = args.real("max_energy_error");
  const long check_steps = args.integer("check_steps");
  int rc = 2;
  if (!(dt > 0) || !(min_time >= 0))
    args.refuse("--dt=" + args.text("dt") + " --min_time=" + args.text("min_time") + ": give dt > 0, min_time >= 0",
                true);
  else if (args.text("N") == "2") rc = run<2>(dt, min_time, check_steps, max_error);
  else if (args.text("N") == "20") rc = run<20>(dt, min_time, check_steps, max_error);
  else args.refuse("--N=" + args.text("N") + ": compiled sizes are N = 2 and N = 20", true);
  MPI_Finalize();
  return rc;
}
