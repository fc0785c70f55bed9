#pragma once
// Sealed HDF5 files: a hash of every byte of the file, checked before HDF5 parses any of it.
//
// HDF5 checksums its newer metadata but not raw data, attributes' heap records or the older
// object headers liebench writes, and HDF5 1.10 follows a damaged global-heap reference without
// a check: one flipped byte of a checkpoint made the restart segfault in H5HG_read instead of
// being refused. A sealed file is created with an HDF5 user block of kSealBytes (which HDF5
// skips: its superblock then starts at kSealBytes) and, once closed, that block is overwritten
// with one line
//     liebench-seal/1 fnv1a64x4=<16 hex digits> bytes=<file size>\n
// and zeros: the hash of every byte from kSealBytes to the end. check_seal() reads the file
// once and compares; any changed, missing or added byte outside the line is found (the hash
// is a bijection of each 8-byte word given the rest), and a damaged line does not parse.
#include <cstddef>
#include <cstdint>
#include <string>

namespace lie::io {

/// Size of the user block that holds the seal (HDF5 wants a power of two >= 512).
inline constexpr std::size_t kSealBytes = 512;

/// Writes the seal into the first kSealBytes of the closed file at `path` (created with a user
/// block of kSealBytes, h5::File::create's `user_block`). Throws IoError naming the path.
void seal_file(const std::string& path);

struct SealCheck {
  enum class State {
    sealed,    // the seal is there and every byte matches it
    unsealed,  // HDF5's signature at byte 0: a file written without a seal (an older version)
    broken,    // anything else; `problem` says what (one clause, for "... is refused: <problem>")
  };
  State state = State::broken;
  std::string problem;
};

/// Reads the file at `path` once and checks its seal. Never throws for a bad file (an
/// unreadable one is broken, with the reason).
SealCheck check_seal(const std::string& path);

/// The hash of the seal over n bytes (4 interleaved FNV-1a lanes of 8-byte words, the tail
/// bytewise, folded by FNV-1a with the length): exposed for the tests.
std::uint64_t seal_hash(const unsigned char* data, std::size_t n);

}  // namespace lie::io
