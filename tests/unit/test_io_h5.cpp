// The HDF5 layer (io/h5.hpp), state rows (models/state_rows.hpp), crash-safe output
// (io/safe_output.hpp) and table rendering (io/table.hpp): written, read back, compared.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "io/h5.hpp"
#include "io/safe_output.hpp"
#include "studies/state_file.hpp"
#include "io/table.hpp"
#include "models/model.hpp"

using namespace lie;

namespace {

/// Scratch directories of this test program, removed at exit.
struct ScratchDirs {
  std::vector<std::string> dirs;
  ~ScratchDirs() {
    for (const auto& d : dirs) std::filesystem::remove_all(d);
  }
};

std::string scratch_dir() {
  static ScratchDirs all;
  char tmpl[] = "/tmp/liebench_io_XXXXXX";
  const char* d = mkdtemp(tmpl);
  if (!d) throw std::runtime_error("cannot create a scratch directory in /tmp");
  all.dirs.emplace_back(d);
  return d;
}

bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

/// Two blocks of 3 components each (momentum in R^3, attitude in SO(3)): rows must interleave.
class TwoBlockModel final : public Model {
 public:
  TwoBlockModel() {
    space_.add(FactorKind::SO3OnR3, 3, "momentum");
    space_.add(FactorKind::SO3Right, 3, "attitude");
  }
  std::string name() const override { return "two_block"; }
  const Space& space() const override { return space_; }
  std::size_t global_components() const override { return 3; }
  int state_dim_per_component() const override { return 12; }
  void initial_state(double* y) const override {
    for (std::size_t i = 0; i < space_.state_size(); ++i) y[i] = static_cast<double>(i);
  }
  void vector_field(double, const double*, double* xi) override {
    for (std::size_t i = 0; i < space_.alg_size(); ++i) xi[i] = 0.0;
  }
  void observables(double, const double*, Observables&) override {}
  std::vector<std::string> observable_names() const override { return {}; }

 private:
  Space space_;
};

}  // namespace

TEST(IoH5, AttributesAndVectorsRoundTrip) {
  const std::string dir = scratch_dir();
  const std::string path = dir + "/a.h5";
  {
    h5::File f = h5::File::create(path, MPI_COMM_SELF);
    {
      h5::Handle g = h5::create_group(f.id(), "a/b/c");
      h5::attr(g, "text", std::string("hello, world"));
      h5::attr(g, "real", 0.1);
      h5::attr(g, "int", std::int64_t{-7});
      h5::attr(g, "reals", std::vector<double>{1.5, NAN, -2.0});
      h5::attr(g, "names", std::vector<std::string>{"a", "bcd", ""});
      h5::attr(g, "text", std::string("replaced"));
      h5::write_vector(f, g, "x", std::vector<double>{1.0, 2.0, 3.0});
      h5::write_vector(f, g, "n", std::vector<std::int64_t>{4, 5});
      h5::write_vector(f, g, "s", std::vector<std::string>{"rkmk4", "lie_euler"});
      h5::write_vector(f, g, "empty", std::vector<double>{});
    }
    f.close();
  }
  h5::File f = h5::File::open_read(path);
  ASSERT_TRUE(h5::exists(f.id(), "a/b/c"));
  EXPECT_FALSE(h5::exists(f.id(), "a/x/c"));
  h5::Handle g = h5::open_group(f.id(), "a/b/c");
  EXPECT_EQ(h5::attr_string(g, "text"), "replaced");
  EXPECT_EQ(h5::attr_double(g, "real"), 0.1);
  EXPECT_EQ(h5::attr_int(g, "int"), -7);
  const auto r = h5::attr_doubles(g, "reals");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_EQ(h5::attr_strings(g, "names"), (std::vector<std::string>{"a", "bcd", ""}));
  EXPECT_EQ(h5::attr_text(g, "int"), "-7");
  EXPECT_EQ(h5::read_doubles(g, "x"), (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(h5::read_ints(g, "n"), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(h5::read_strings(g, "s"), (std::vector<std::string>{"rkmk4", "lie_euler"}));
  EXPECT_TRUE(h5::read_doubles(g, "empty").empty());
  EXPECT_EQ(h5::list(g), (std::vector<std::string>{"empty", "n", "s", "x"}));
  EXPECT_EQ(h5::dataset_kind(h5::open_dataset(g, "s")), h5::Kind::String);
  EXPECT_THROW(h5::attr_string(g, "missing"), h5::Error);
  EXPECT_THROW(h5::File::open_read(dir + "/nope.h5"), h5::Error);
}

TEST(IoH5, RowsAndFramesRoundTrip) {
  const std::string path = scratch_dir() + "/rows.h5";
  {
    h5::File f = h5::File::create(path, MPI_COMM_SELF);
    std::vector<double> rows(4 * 3);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = 0.5 * static_cast<double>(i);
    h5::write_rows(f, f.id(), "state", 4, 3, 0, 4, rows.data());
    h5::FrameWriter w(f, f.id(), "traj/value", 4, 3);
    w.append(0, 4, rows.data());
    for (double& v : rows) v = -v;
    w.append(0, 4, rows.data());
    EXPECT_EQ(w.frames(), 2u);
    w.close();
    f.close();
  }
  h5::File f = h5::File::open_read(path);
  std::size_t cols = 0;
  const auto mid = h5::read_rows(f.id(), "state", 1, 2, &cols);
  EXPECT_EQ(cols, 3u);
  EXPECT_EQ(mid, (std::vector<double>{1.5, 2.0, 2.5, 3.0, 3.5, 4.0}));
  h5::Handle d = h5::open_dataset(f.id(), "traj/value");
  EXPECT_EQ(h5::dataset_shape(d), (std::vector<std::size_t>{2, 4, 3}));
  const auto all = h5::read_doubles(f.id(), "traj/value");
  EXPECT_EQ(all[12 + 5], -2.5);
  EXPECT_THROW(h5::read_rows(f.id(), "state", 3, 2), h5::Error);
}

TEST(IoStateRows, InterleavesBlocksAndReadsBack) {
  par::Context ctx(MPI_COMM_SELF);
  TwoBlockModel m;
  const io::StateRows layout = io::state_rows(m, ctx);
  EXPECT_TRUE(layout.interleave);
  EXPECT_EQ(layout.local_rows, 3u);
  EXPECT_EQ(layout.cols, 12u);
  std::vector<double> y(m.space().state_size());
  m.initial_state(y.data());
  const auto rows = io::pack_rows(m, layout, y.data());
  // row 1 = momentum of component 1 (values 3,4,5), then its attitude (9 + 9*1 ... )
  EXPECT_EQ(rows[12 + 0], 3.0);
  EXPECT_EQ(rows[12 + 2], 5.0);
  EXPECT_EQ(rows[12 + 3], 9.0 + 9.0);
  EXPECT_EQ(rows[12 + 11], 9.0 + 9.0 + 8.0);
  std::vector<double> back(y.size(), -1.0);
  io::unpack_rows(m, layout, rows.data(), back.data());
  EXPECT_EQ(back, y);

  const std::string path = scratch_dir() + "/state.h5";
  {
    h5::File f = h5::File::create(path, MPI_COMM_SELF);
    io::write_state(f, f.id(), "runs/run_00000/final_state", m, layout, y.data());
    f.close();
  }
  std::vector<double> read(y.size(), 0.0);
  io::read_state(path, "/runs/run_00000/final_state", m, ctx, read.data());
  EXPECT_EQ(read, y);
  EXPECT_THROW(io::read_state(path, "/runs/run_00001/final_state", m, ctx, read.data()), UsageError);
}

TEST(IoSafeOutput, ChecksBeforeCreatingAndCommitsAtomically) {
  const std::string dir = scratch_dir();
  const std::string final_path = dir + "/result.h5";
  EXPECT_THROW(io::SafeOutput::check(dir + "/missing/x.h5", false, MPI_COMM_SELF), UsageError);
  EXPECT_THROW(io::SafeOutput::check(dir, false, MPI_COMM_SELF), UsageError);
  { std::ofstream(final_path) << "earlier result"; }
  try {
    io::SafeOutput::check(final_path, false, MPI_COMM_SELF);
    FAIL() << "an existing file must need --force";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos);
  }
  io::SafeOutput::check(final_path, true, MPI_COMM_SELF);
  {
    io::SafeOutput out(final_path, true, MPI_COMM_SELF);
    { std::ofstream(out.temp_path()) << "half written"; }
    EXPECT_TRUE(file_exists(out.temp_path()));
    // destroyed without commit: temp removed, earlier file intact
  }
  std::ifstream in(final_path);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "earlier result");
  std::string temp;
  {
    io::SafeOutput out(final_path, true, MPI_COMM_SELF);
    temp = out.temp_path();
    { std::ofstream(out.temp_path()) << "new result"; }
    out.commit();
  }
  EXPECT_FALSE(file_exists(temp));
  std::ifstream in2(final_path);
  std::getline(in2, content);
  EXPECT_EQ(content, "new result");
  // without --force a file that appeared meanwhile is never replaced
  io::SafeOutput guarded(final_path, false, MPI_COMM_SELF);
  { std::ofstream(guarded.temp_path()) << "other"; }
  EXPECT_THROW(guarded.commit(), std::runtime_error);
  EXPECT_FALSE(file_exists(guarded.temp_path()));
}

TEST(IoTable, RendersMarkdownLatexCsv) {
  io::Table t;
  t.title = "errors_and rates";
  t.header = {"method", "error"};
  t.numeric = {false, true};
  t.rows = {{"rkmk4", io::fmt_sci(1.23456e-5)}, {"a|b,c", io::fmt_sci(NAN)}};
  t.notes = {"note"};
  const std::string md = io::render(t, io::TableFormat::Markdown);
  EXPECT_NE(md.find("| rkmk4  | 1.235e-05 |"), std::string::npos) << md;
  EXPECT_NE(md.find("a\\|b,c"), std::string::npos);
  const std::string tex = io::render(t, io::TableFormat::Latex);
  EXPECT_NE(tex.find("\\caption{errors\\_and rates}"), std::string::npos);
  EXPECT_NE(tex.find("\\begin{tabular}{lr}"), std::string::npos);
  const std::string csv = io::render(t, io::TableFormat::Csv);
  EXPECT_NE(csv.find("\"a|b,c\",nan"), std::string::npos) << csv;
  EXPECT_EQ(io::fmt_fixed(-0.001, 2), "0.00");
  EXPECT_THROW(io::parse_table_format("xls"), UsageError);
}
