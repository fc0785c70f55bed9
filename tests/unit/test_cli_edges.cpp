// Rough edges of the command line (issue 12): the progress bar fits the terminal, unknown keys
// get the keys the user probably meant, methods know the table they are built on.
#include <gtest/gtest.h>

#include "io/config.hpp"
#include "methods/butcher.hpp"
#include "studies/progress.hpp"

namespace lie {
namespace {

TEST(ProgressBar, FitsEveryTerminalWidth) {
  const std::string label = "rkmk4 dt=0.0078125 N=200 theta=0.5";
  for (int cols = 1; cols <= 240; ++cols) {
    for (double f : {0.0, 0.123, 0.5, 1.0}) {
      const std::string line = studies::progress_bar_line(f, 12, 345, label, "01:02:03", "00:05", cols);
      ASSERT_LE(line.size(), static_cast<std::size_t>(std::max(cols - 1, 1))) << "columns " << cols << ": " << line;
      ASSERT_FALSE(line.empty());
      ASSERT_EQ(line.find('\n'), std::string::npos);
    }
  }
  // Wide terminal: everything is there, the bar 30 cells long, the label cut to 24 characters.
  const std::string wide = studies::progress_bar_line(0.5, 12, 345, label, "01:02:03", "00:05", 200);
  EXPECT_NE(wide.find("[###############...............]"), std::string::npos) << wide;
  EXPECT_NE(wide.find(" 50.0%"), std::string::npos);
  EXPECT_NE(wide.find("run 13/345"), std::string::npos);
  EXPECT_NE(wide.find(" " + label.substr(0, 24) + "  elapsed"), std::string::npos) << wide;
  EXPECT_NE(wide.find("ETA 00:05"), std::string::npos);
  // 80 columns: percentage, counter and times survive.
  const std::string std80 = studies::progress_bar_line(0.25, 0, 3, label, "00:10", "00:30", 80);
  EXPECT_NE(std80.find(" 25.0%"), std::string::npos) << std80;
  EXPECT_NE(std80.find("ETA 00:30"), std::string::npos) << std80;
  // Very narrow: the percentage alone.
  EXPECT_EQ(studies::progress_bar_line(0.25, 0, 3, label, "00:10", "00:30", 8), " 25.0%");
}

TEST(UnknownKey, SuggestsPrefixesAndNearKeys) {
  const OptionCatalog& c = OptionCatalog::instance();
  ASSERT_NE(c.find("methods"), nullptr);
  const std::string prefix = c.unknown_key_message("meth");
  EXPECT_NE(prefix.find("unknown key 'meth'"), std::string::npos) << prefix;
  EXPECT_NE(prefix.find("'methods'"), std::string::npos) << prefix;
  const std::string typo = c.unknown_key_message("t_fnal", " on the command line");
  EXPECT_NE(typo.find("unknown key 't_fnal' on the command line (did you mean 't_final'"), std::string::npos) << typo;
  const std::string none = c.unknown_key_message("zzzzzzzzzz");
  EXPECT_EQ(none.find("did you mean"), std::string::npos) << none;
  EXPECT_NE(none.find("liebench list keys"), std::string::npos);
}

TEST(MethodTables, MethodsKnowTheirTable) {
  ASSERT_NE(method_table("rkmk4"), nullptr);
  EXPECT_EQ(*method_table("rkmk4"), "rk4");
  EXPECT_EQ(*method_table("rkmk54"), "dopri5");
  EXPECT_EQ(*method_table("dopri54"), "dopri5");
  EXPECT_EQ(*method_table("lie_euler"), "euler");
  EXPECT_EQ(*method_table("cf43"), "cf43");
  EXPECT_EQ(method_table("lgvi"), nullptr);
  EXPECT_EQ(method_table("rkmk_user"), nullptr);
}

}  // namespace
}  // namespace lie
