// Unit strings of the H5MD units module (io/units.hpp): the suite's notation ("kg m^2/s") turned
// into H5MD's ("kg m+2 s-1", https://nongnu.org/h5md/modules/units.html), products and quotients,
// refusal of non-SI symbols, and the SI units of the models' observables.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "io/units.hpp"

using lie::io::UnitFactors;
using lie::io::Units;
using lie::io::UnitSystem;

namespace {
std::string h5md(const std::string& s) { return UnitFactors::parse(s).h5md(); }
}  // namespace

TEST(Units, SuiteNotationBecomesH5mdUnitStrings) {
  EXPECT_EQ(h5md("kg m^2/s"), "kg m+2 s-1");
  EXPECT_EQ(h5md("rad/s"), "rad s-1");
  EXPECT_EQ(h5md("1/s"), "s-1");
  EXPECT_EQ(h5md("m/s^2"), "m s-2");
  EXPECT_EQ(h5md("kg^2 m^4/s^2"), "kg+2 m+4 s-2");
  EXPECT_EQ(h5md("J"), "J");
  EXPECT_EQ(h5md("time"), "s");  // the suite's older spelling
  EXPECT_EQ(h5md("1"), "");
  EXPECT_TRUE(UnitFactors::parse("1").dimensionless());
  // H5MD's own syntax reads back unchanged
  EXPECT_EQ(h5md("kg m+2 s-1"), "kg m+2 s-1");
  EXPECT_EQ(h5md("m s-2"), "m s-2");
}

TEST(Units, ProductsAndQuotientsCancel) {
  EXPECT_EQ(UnitFactors::parse("kg m/s").times(UnitFactors::parse("m")).h5md(), "kg m+2 s-1");
  EXPECT_EQ(UnitFactors::parse("kg m^2/s").per(UnitFactors::parse("s")).h5md(), "kg m+2 s-2");
  EXPECT_TRUE(UnitFactors::parse("m/s").per(UnitFactors::parse("m/s")).dimensionless());
  EXPECT_EQ(UnitFactors::parse("1").per(UnitFactors::parse("s")).h5md(), "s-1");
}

TEST(Units, RefusesWhatIsNotAnSiUnit) {
  EXPECT_THROW(UnitFactors::parse("sigma"), std::invalid_argument);  // reduced units of the dipolar model
  EXPECT_THROW(UnitFactors::parse("model units"), std::invalid_argument);
  EXPECT_THROW(UnitFactors::parse("m/s/s"), std::invalid_argument);
  EXPECT_THROW(UnitFactors::parse("m^0"), std::invalid_argument);
  EXPECT_THROW(UnitFactors::parse("m^x"), std::invalid_argument);
  EXPECT_THROW(Units(UnitSystem::SI).of("sigma"), std::invalid_argument);
  EXPECT_EQ(Units(UnitSystem::Dimensionless).of("sigma"), "");  // dimensionless: no unit at all
}

TEST(Units, ObservablesInSiAndDimensionless) {
  const Units si(UnitSystem::SI), none;
  EXPECT_EQ(si.observable("total_energy"), "J");
  EXPECT_EQ(si.observable("angular_momentum_x"), "kg m+2 s-1");
  EXPECT_EQ(si.observable("linear_momentum_z"), "kg m s-1");
  EXPECT_EQ(si.observable("unit_norm_error"), "");
  EXPECT_EQ(si.observable("tangency_error"), "rad s-1");
  EXPECT_EQ(si.observable("link2_direction_error"), "");
  EXPECT_EQ(si.time(), "s");
  EXPECT_EQ(none.observable("total_energy"), "");
  EXPECT_EQ(none.time(), "");
  EXPECT_THROW(Units::observable_si("no_such_observable"), std::invalid_argument);
}
