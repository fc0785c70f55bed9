// Rough edges of the command line (issue 12): the progress bar fits the terminal, unknown keys
// get the keys the user probably meant, methods know the table they are built on. Messages that
// echo input (issue 29): long values cut with their size, unprintable bytes escaped, numbers
// short.
#include <gtest/gtest.h>

#include <chrono>

#include "core/quote.hpp"
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
  const std::string cut_label = std::string(" ").append(label, 0, 24).append("  elapsed");  // appended: GCC 12 warns (-Wrestrict, a false positive) on " " + ...
  EXPECT_NE(wide.find(cut_label), std::string::npos) << wide;
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

TEST(Quote, CutsEscapesAndKeepsUtf8) {
  EXPECT_EQ(quote("rkmk4"), "'rkmk4'");
  EXPECT_EQ(quote(""), "''");
  EXPECT_EQ(quote(std::string("a\0b\xff\x01\n\t\\", 8)), "'a\\x00b\\xFF\\x01\\n\\t\\\\'");
  EXPECT_EQ(quote("Kjer 2017 \xc3\xa9t\xc3\xa9 \xe2\x88\x87"), "'Kjer 2017 \xc3\xa9t\xc3\xa9 \xe2\x88\x87'");  // UTF-8 kept
  EXPECT_EQ(quote("\xc3"), "'\\xC3'");              // a lone lead byte
  EXPECT_EQ(quote("\xc2\x9b"), "'\\xC2\\x9B'");      // C1 control (CSI) as bytes
  EXPECT_EQ(quote("\xed\xa0\x80"), "'\\xED\\xA0\\x80'");  // a UTF-16 surrogate
  const std::string mb(1 << 20, 'a');
  const std::string q = quote(mb);
  EXPECT_LE(q.size(), kQuoteMax + 40) << q;
  std::string expected = "'";  // appended, as above
  expected.append(120, 'a').append("...").append(40, 'a').append("' (1048576 bytes)");
  EXPECT_EQ(q, expected);
  // a long path keeps its start and its file name
  const std::string path = "/scratch/" + std::string(300, 'd') + "/conv_chain.h5";
  const std::string qp = quote(path);
  EXPECT_EQ(qp.rfind("'/scratch/ddd", 0), 0u) << qp;
  EXPECT_NE(qp.find("/conv_chain.h5' (" + std::to_string(path.size()) + " bytes)"), std::string::npos) << qp;
  // binary: escaped, cut on whole escapes
  std::string bin;
  for (int i = 0; i < 4096; ++i) bin += static_cast<char>(i * 37 % 256);
  const std::string qb = quote(bin);
  EXPECT_LE(qb.size(), kQuoteMax + 40) << qb;
  for (char c : qb) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << qb;
  // printable(): a whole message, the escapes of its quoted values kept as they are
  EXPECT_EQ(printable("key 'x' has value '\\x00'\n", 100), "key 'x' has value '\\x00'\\n");
  EXPECT_EQ(printable(std::string(5000, 'b'), 100), std::string(100, 'b') + "... (5000 bytes)");
}

TEST(Quote, NumbersAreShortAndExact) {
  EXPECT_EQ(num(1e300), "1e+300");
  EXPECT_EQ(num(1e-300), "1e-300");
  EXPECT_EQ(num(0.1), "0.1");
  EXPECT_EQ(num(4.0), "4");
  EXPECT_EQ(num(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(std::stod(num(0.1 + 0.2)), 0.1 + 0.2);  // round trip, at most 17 digits
  EXPECT_LE(num(0.1 + 0.2).size(), 19u);
}

TEST(Quote, UsageErrorsEchoInputShort) {
  const std::string mb(1 << 20, 'a');
  try {
    parse_double("t_final", mb);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_LT(m.size(), 300u) << m.substr(0, 400);
    EXPECT_NE(m.find("(1048576 bytes)"), std::string::npos) << m.substr(0, 400);
  }
  try {
    Config::from_pairs({{"t_final", std::string("1\0\xff", 3)}});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'1\\x00\\xFF'; expected a real number"), std::string::npos) << e.what();
  }
  // an unknown 1 MB key: one short line, and no edit-distance table of 1 MB x every key
  const auto t0 = std::chrono::steady_clock::now();
  const std::string m = OptionCatalog::instance().unknown_key_message(mb);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_LT(m.size(), 400u) << m.substr(0, 500);
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
