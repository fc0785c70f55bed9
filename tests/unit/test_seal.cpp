// Sealed HDF5 files (src/io/seal.hpp): a file written with a user block and sealed reads as
// sealed and opens in HDF5; every single-byte change anywhere, one byte more or less, and a
// file written without a seal are told apart, before HDF5 parses anything.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/seal.hpp"

using namespace lie;

namespace {

std::string scratch(const std::string& name) {
  return (::testing::TempDir().empty() ? std::string("/tmp/") : ::testing::TempDir()) + "liebench_seal_" +
         std::to_string(::getpid()) + "_" + name;
}
std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void spill(const std::string& path, const std::vector<char>& b) {
  std::ofstream(path, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}
/// A small HDF5 file with attributes (global heap strings) and a dataset, with a user block of
/// `user_block` bytes.
void write_file(const std::string& path, std::size_t user_block) {
  h5::File f = h5::File::create(path, MPI_COMM_SELF, user_block);
  {
    h5::Handle g = h5::create_group(f.id(), "run/e_00000");
    h5::attr(g, "model", std::string("nfold_pendulum"));
    h5::attr(g, "names", std::vector<std::string>{"rkmk4", "lie_euler"});
    h5::write_vector(f, g, "state", std::vector<double>{1.0, 2.0, 3.0, 4.0});
  }
  f.close();
}

}  // namespace

TEST(IoSeal, SealedFileReadsAsSealedAndOpens) {
  const std::string path = scratch("a.h5");
  write_file(path, io::kSealBytes);
  io::seal_file(path);
  const io::SealCheck c = io::check_seal(path);
  EXPECT_EQ(c.state, io::SealCheck::State::sealed) << c.problem;
  const std::vector<char> b = slurp(path);
  EXPECT_EQ(std::string(b.data(), 16), "liebench-seal/1 ");
  h5::File f = h5::File::open_read(path);
  {
    h5::Handle g = h5::open_group(f.id(), "run/e_00000");
    EXPECT_EQ(h5::attr_string(g, "model"), "nfold_pendulum");
  }
  f.close();
  std::remove(path.c_str());
}

TEST(IoSeal, EveryChangedByteIsFound) {
  const std::string path = scratch("b.h5"), flipped = scratch("b_flipped.h5");
  write_file(path, io::kSealBytes);
  io::seal_file(path);
  const std::vector<char> good = slurp(path);
  ASSERT_GT(good.size(), 1000u);
  int broken = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (unsigned char mask : {0x01, 0x80}) {
      std::vector<char> b = good;
      b[i] = static_cast<char>(b[i] ^ mask);
      spill(flipped, b);
      const io::SealCheck c = io::check_seal(flipped);
      EXPECT_EQ(c.state, io::SealCheck::State::broken) << "byte " << i << " mask " << int(mask);
      broken += c.state == io::SealCheck::State::broken && !c.problem.empty();
    }
  }
  EXPECT_EQ(broken, static_cast<int>(2 * good.size()));
  // one byte more, one byte less
  std::vector<char> longer = good;
  longer.push_back('\0');
  spill(flipped, longer);
  EXPECT_EQ(io::check_seal(flipped).state, io::SealCheck::State::broken);
  spill(flipped, std::vector<char>(good.begin(), good.end() - 1));
  EXPECT_EQ(io::check_seal(flipped).state, io::SealCheck::State::broken);
  spill(flipped, std::vector<char>(good.begin(), good.begin() + 100));
  EXPECT_NE(io::check_seal(flipped).problem.find("shorter"), std::string::npos);
  std::remove(path.c_str());
  std::remove(flipped.c_str());
}

TEST(IoSeal, UnsealedAndUnreadableFiles) {
  const std::string path = scratch("c.h5");
  write_file(path, 0);
  EXPECT_EQ(io::check_seal(path).state, io::SealCheck::State::unsealed);
  // no user block to seal: refused with the reason, the file untouched
  const std::vector<char> before = slurp(path);
  EXPECT_THROW(io::seal_file(path), IoError);
  EXPECT_EQ(slurp(path), before);
  // a user block never sealed (zeros): broken, not unsealed
  write_file(path, io::kSealBytes);
  EXPECT_EQ(io::check_seal(path).state, io::SealCheck::State::broken);
  std::remove(path.c_str());
  const io::SealCheck missing = io::check_seal(scratch("does_not_exist.h5"));
  EXPECT_EQ(missing.state, io::SealCheck::State::broken);
  EXPECT_NE(missing.problem.find("cannot be read"), std::string::npos);
}

TEST(IoSeal, HashSeesEveryWordAndTheLength) {
  std::vector<unsigned char> a(1000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 37 + 11);
  const std::uint64_t h = io::seal_hash(a.data(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::vector<unsigned char> b = a;
    b[i] ^= 0x40;
    EXPECT_NE(io::seal_hash(b.data(), b.size()), h) << i;
  }
  EXPECT_NE(io::seal_hash(a.data(), a.size() - 1), h);
  std::vector<unsigned char> zeros(64, 0);
  EXPECT_NE(io::seal_hash(zeros.data(), 64), io::seal_hash(zeros.data(), 63));  // trailing zeros count
}
