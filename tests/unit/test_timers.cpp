// par::Timers (src/parallel/timers.hpp): off until a consumer asks, and then they time.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "parallel/timers.hpp"

using namespace lie::par;

TEST(Timers, OffUntilAskedThenTheyTime) {
  Timers t;
  EXPECT_FALSE(t.enabled());
  {
    ScopedTimer s(t, "rhs");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(t.get("rhs"), 0.0);  // no phase recorded, no clock read
  EXPECT_TRUE(t.all().empty());
  t.enable();
  {
    ScopedTimer s(t, "rhs");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_GE(t.get("rhs"), 0.002);
  // a scope that began while off adds nothing when the timers are switched on inside it
  t.clear();
  t.enable(false);
  {
    ScopedTimer s(t, "comm");
    t.enable();
  }
  EXPECT_EQ(t.get("comm"), 0.0);
}
