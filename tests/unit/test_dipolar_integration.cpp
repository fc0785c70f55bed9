// Dipolar soft spheres integrated with RKMK ([K] 3.2.2): observed orders of RKMK3/RKMK4 on
// [0, 1] against a tight reference, energy and angular-momentum errors shrinking at the
// method's order, linear momentum kept to rounding, orthogonality of Q_i over 1000 steps,
// the 2-D variant staying planar, and the HDF5 initial state read back bitwise.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "groups/so3.hpp"
#include "methods/integrate.hpp"
#include "methods/stepper.hpp"
#include "models/dipolar.hpp"
#include "unit/dipolar_testing.hpp"

using namespace lie;
using lie::dipolar_testing::start_state;
using lie::dipolar_testing::ten_bodies;

namespace {

using RowMat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

std::vector<double> integrate(Dipolar& model, const std::vector<double>& y0, const std::string& method, int steps,
                              double T, const Observer& obs = nullptr) {
  par::Context ctx(MPI_COMM_SELF);
  auto st = make_stepper(method, Config::from_pairs({}), model);
  st->bind(model, ctx);
  std::vector<double> y = y0;
  FixedStepOptions opt;
  opt.h = T / steps;
  opt.steps = static_cast<std::uint64_t>(steps);
  opt.stride = 1;
  integrate_fixed(*st, y.data(), opt, obs);
  return y;
}

double distance(Dipolar& model, const std::vector<double>& a, const std::vector<double>& b) {
  return model.state_distance(a.data(), b.data(), model.context());
}

}  // namespace

TEST(DipolarIntegration, RkmkOrdersOnUnitInterval) {
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(ten_bodies(), ctx);
  const auto y0 = start_state(model, 0.5);
  const auto ref = integrate(model, y0, "rkmk5", 512, 1.0);
  ASSERT_GT(distance(model, y0, ref), 0.5) << "the bodies must move";
  for (auto [m, p] : std::vector<std::pair<std::string, int>>{{"rkmk3", 3}, {"rkmk4", 4}}) {
    const double e1 = distance(model, integrate(model, y0, m, 16, 1.0), ref);
    const double e2 = distance(model, integrate(model, y0, m, 32, 1.0), ref);
    EXPECT_NEAR(std::log2(e1 / e2), p, 0.3) << m << " e1=" << e1 << " e2=" << e2;
  }
}

TEST(DipolarIntegration, InvariantErrorsShrinkAtTheOrderAndMomentumIsKept) {
  DipolarParams p = ten_bodies();
  p.lj_attraction = true;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  const auto y0 = start_state(model, 0.5);
  Observables o0;
  model.observables(0.0, y0.data(), o0);
  auto errors = [&](int steps) {
    const auto y = integrate(model, y0, "rkmk4", steps, 2.0);
    Observables o;
    model.observables(2.0, y.data(), o);
    double dL = 0.0, dP = 0.0;
    for (const char* c : {"x", "y", "z"}) {
      dL = std::max(dL, std::fabs(o.get(std::string("angular_momentum_") + c) - o0.get(std::string("angular_momentum_") + c)));
      dP = std::max(dP, std::fabs(o.get(std::string("linear_momentum_") + c) - o0.get(std::string("linear_momentum_") + c)));
    }
    return std::array<double, 3>{std::fabs(o.get("total_energy") - o0.get("total_energy")), dL, dP};
  };
  const auto a = errors(20), b = errors(40);
  EXPECT_NEAR(std::log2(a[0] / b[0]), 4.0, 0.5) << "energy " << a[0] << " " << b[0];
  EXPECT_NEAR(std::log2(a[1] / b[1]), 4.0, 0.5) << "angular momentum " << a[1] << " " << b[1];
  // Linear momentum is a linear invariant: any RK method keeps it up to rounding.
  EXPECT_LT(a[2], 1e-14);
  EXPECT_LT(b[2], 1e-14);
}

TEST(DipolarIntegration, OrthogonalityOverThousandSteps) {
  // [K] Fig. 3.6: t in [0, 100], h = 0.1, errors of order 1e-14. Here with spinning bodies.
  DipolarParams p;
  p.n = 10;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  const auto y0 = start_state(model, 1.0);
  double worst = 0.0;
  integrate(model, y0, "rkmk4", 1000, 100.0, [&](double, const double* y, std::uint64_t) {
    for (std::size_t i = 0; i < p.n; ++i)
      worst = std::max(worst, so3::orthogonality_error(Mat3(Eigen::Map<const RowMat3>(y + 18 * i + 6))));
  });
  // Each step multiplies by one exp(xi) (orthogonal to a few ulps): a random walk of
  // 1000 such factors stays far below 1000 * 1e-15.
  EXPECT_LT(worst, 5e-14);  // measured 1.2e-14, as [K] Fig. 3.6
  EXPECT_GT(worst, 0.0);
}

TEST(DipolarIntegration, TwoDimensionalVariantStaysPlanar) {
  DipolarParams p;
  p.n = 10;
  p.initial = DipolarParams::Initial::Random2D;
  p.dipole = {1.0, 1.0, 0.0};
  p.spread = 4.0;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar model(p, ctx);
  std::vector<double> y0(model.space().state_size());
  model.initial_state(y0.data());
  const auto y = integrate(model, y0, "rkmk4", 500, 50.0);
  double out_of_plane = 0.0;
  for (std::size_t i = 0; i < p.n; ++i) {
    const double* s = &y[18 * i];
    // q_z, p_z, Q's off-plane entries, Q_zz - 1, m_x, m_y
    for (double v : {s[2], s[5], s[6 + 2], s[6 + 5], s[6 + 6], s[6 + 7], s[6 + 8] - 1.0, s[15], s[16]})
      out_of_plane = std::max(out_of_plane, std::fabs(v));
  }
  EXPECT_LT(out_of_plane, 1e-15);
  EXPECT_GT(distance(model, y0, y), 1.0) << "the bodies must move in the plane";
}

TEST(DipolarIntegration, InitialStateFromHdf5File) {
  DipolarParams p;
  p.n = 23;
  p.spread = 5.0;
  par::Context ctx(MPI_COMM_SELF);
  Dipolar src(p, ctx);
  const auto y = start_state(src, 0.3);
  const std::string path = ::testing::TempDir() + "dipolar_state.h5";
  {
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hsize_t dims[2] = {p.n, 18};
    const hid_t sp = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/runs/run_00000/final_state", H5T_IEEE_F64LE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, y.data());
    // a second dataset with a broken orientation
    std::vector<double> bad = y;
    bad[18 * 4 + 6] += 1e-3;
    const hid_t d2 = H5Dcreate2(f, "/bad", H5T_IEEE_F64LE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, bad.data());
    H5Dclose(d2);
    H5Dclose(d);
    H5Sclose(sp);
    H5Pclose(lcpl);
    H5Fclose(f);
  }
  DipolarParams fp;
  fp.initial = DipolarParams::Initial::File;
  fp.file = path;
  fp.n = 0;  // from the file
  Dipolar model(fp, ctx);
  ASSERT_EQ(model.global_components(), p.n);
  std::vector<double> y2(model.space().state_size());
  model.initial_state(y2.data());
  EXPECT_EQ(y, y2);  // bitwise
  fp.n = 24;
  EXPECT_THROW(Dipolar(fp, ctx), UsageError);
  fp.n = 0;
  fp.dataset = "/runs/run_00001/final_state";
  EXPECT_THROW(Dipolar(fp, ctx), UsageError);
  fp.dataset = "/bad";
  try {
    Dipolar m(fp, ctx);
    ADD_FAILURE() << "non-orthogonal Q accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("body 4"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}
