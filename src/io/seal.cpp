#include "io/seal.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace lie::io {

namespace {

constexpr std::uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;
constexpr char kSealTag[] = "liebench-seal/1 fnv1a64x4=";
constexpr unsigned char kHdf5Signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/// seal_hash in pieces: update() with multiples of 32 bytes, then finish() with the rest.
class SealHasher {
 public:
  void update(const unsigned char* data, std::size_t n) {  // n % 32 == 0
    for (std::size_t i = 0; i < n; i += 32)
      for (int l = 0; l < 4; ++l) {
        std::uint64_t x;
        std::memcpy(&x, data + i + 8 * static_cast<std::size_t>(l), 8);
        lane_[l] = (lane_[l] ^ x) * kFnvPrime;
      }
    total_ += n;
  }
  std::uint64_t finish(const unsigned char* data, std::size_t n) {  // n < 32
    const std::size_t words = n / 8;
    for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t x;
      std::memcpy(&x, data + 8 * w, 8);
      lane_[0] = (lane_[0] ^ x) * kFnvPrime;
    }
    std::uint64_t h = kFnvOffset;
    for (std::size_t i = 8 * words; i < n; ++i) h = (h ^ data[i]) * kFnvPrime;
    for (int l = 0; l < 4; ++l) h = (h ^ lane_[l]) * kFnvPrime;
    return (h ^ static_cast<std::uint64_t>(total_ + n)) * kFnvPrime;
  }

 private:
  std::uint64_t lane_[4] = {kFnvOffset, kFnvOffset ^ 1, kFnvOffset ^ 2, kFnvOffset ^ 3};
  std::size_t total_ = 0;
};

/// The first kSealBytes of the file (fewer if it is shorter), the hash of the rest and the
/// file's size; false with an error text if it cannot be read.
bool read_sealed(const std::string& path, std::vector<unsigned char>& head, std::uint64_t& hash, std::size_t& size,
                 std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "it cannot be read (" + std::string(std::strerror(errno)) + ")";
    return false;
  }
  head.resize(kSealBytes);
  head.resize(std::fread(head.data(), 1, kSealBytes, f));
  SealHasher hasher;
  std::vector<unsigned char> buf(std::size_t{1} << 20);
  std::size_t have = 0;  // bytes in buf not hashed yet (< 32 after each round)
  size = head.size();
  bool failed = std::ferror(f) != 0;
  while (!failed) {
    const std::size_t got = std::fread(buf.data() + have, 1, buf.size() - have, f);
    failed = std::ferror(f) != 0;
    have += got;
    size += got;
    const std::size_t whole = have / 32 * 32;
    if (got == 0 || failed) break;
    hasher.update(buf.data(), whole);
    std::memmove(buf.data(), buf.data() + whole, have - whole);
    have -= whole;
  }
  std::fclose(f);
  if (failed) {
    error = "it cannot be read to its end";
    return false;
  }
  hash = hasher.finish(buf.data(), have);
  return true;
}

std::string seal_line(std::uint64_t hash, std::size_t size) {
  char line[128];
  std::snprintf(line, sizeof line, "%s%016" PRIx64 " bytes=%zu\n", kSealTag, hash, size);
  return line;
}

}  // namespace

std::uint64_t seal_hash(const unsigned char* data, std::size_t n) {
  SealHasher h;
  const std::size_t whole = n / 32 * 32;
  h.update(data, whole);
  return h.finish(data + whole, n - whole);
}

void seal_file(const std::string& path) {
  std::vector<unsigned char> head;
  std::uint64_t hash = 0;
  std::size_t size = 0;
  std::string error;
  if (!read_sealed(path, head, hash, size, error)) throw IoError("cannot seal " + quote(path) + ": " + error);
  // (the superblock right after the user block: HDF5's signature at kSealBytes)
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  if (!f) throw IoError("cannot seal " + quote(path) + ": " + std::strerror(errno));
  unsigned char at[sizeof kHdf5Signature] = {};
  const bool has_block = size >= kSealBytes + sizeof at && std::fseek(f, static_cast<long>(kSealBytes), SEEK_SET) == 0 &&
                         std::fread(at, 1, sizeof at, f) == sizeof at &&
                         std::memcmp(at, kHdf5Signature, sizeof at) == 0;
  if (!has_block) {
    std::fclose(f);
    throw IoError("cannot seal " + quote(path) + ": it has no user block of " + std::to_string(kSealBytes) +
                  " bytes before its HDF5 superblock");
  }
  const std::string line = seal_line(hash, size);
  std::vector<char> block(kSealBytes, '\0');
  std::memcpy(block.data(), line.data(), line.size());
  const bool ok = std::fseek(f, 0, SEEK_SET) == 0 && std::fwrite(block.data(), 1, block.size(), f) == block.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) throw IoError("cannot seal " + quote(path) + ": a write error or a full disk");
}

SealCheck check_seal(const std::string& path) {
  SealCheck c;
  std::vector<unsigned char> head;
  std::uint64_t hash = 0;
  std::size_t size = 0;
  if (!read_sealed(path, head, hash, size, c.problem)) return c;
  if (head.size() >= sizeof kHdf5Signature && std::memcmp(head.data(), kHdf5Signature, sizeof kHdf5Signature) == 0) {
    c.state = SealCheck::State::unsealed;
    return c;
  }
  if (head.size() < kSealBytes) {
    c.problem = "it is shorter (" + std::to_string(size) + " bytes) than its seal";
    return c;
  }
  const std::size_t tag = sizeof kSealTag - 1;
  if (std::memcmp(head.data(), kSealTag, tag) != 0) {
    c.problem = "its seal (the first " + std::to_string(kSealBytes) + " bytes) is damaged or missing";
    return c;
  }
  // The line as it must read for these bytes, then zeros: any other block is damaged.
  const std::string want = seal_line(hash, size);
  bool zeros = true;
  for (std::size_t i = want.size(); i < kSealBytes; ++i) zeros = zeros && head[i] == 0;
  if (std::memcmp(head.data(), want.data(), want.size()) != 0 || !zeros) {
    c.problem = "its bytes do not match their seal (damaged, truncated or extended)";
    return c;
  }
  c.state = SealCheck::State::sealed;
  return c;
}

}  // namespace lie::io
