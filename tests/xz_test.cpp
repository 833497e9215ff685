// core::unxz and core::tar_members (src/core/xz.hpp) against data made by another encoder (CMake's, through
// libarchive: tests/xz/make_vectors.cmake), and seeded corruptions of it: every result is the original data or
// an Error, never anything else.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/xz.hpp"
#include "gpuscan/error.hpp"

namespace gpuscan::test {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr size_t no_limit = size_t(1) << 30;
const char* const texts[] = {"empty", "one", "three", "noise", "long_text", "packed"};

Bytes read_vector(const std::string& file) {
  const std::string path = (std::filesystem::path(GPUSCAN_XZ_VECTORS) / file).string();
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

TEST(Xz, ChecksOfTheStandardString) {
  const Bytes check = bytes_of("123456789");
  EXPECT_EQ(core::crc32(check), 0xCBF43926u);
  EXPECT_EQ(core::crc64(check), 0x995DC9BBDF1939FAull);
  EXPECT_EQ(core::crc32(Bytes{}), 0u);
  EXPECT_EQ(core::crc64(Bytes{}), 0u);
  // Continued over a split input, the same as over the whole.
  const Bytes head(check.begin(), check.begin() + 4), tail(check.begin() + 4, check.end());
  EXPECT_EQ(core::crc32(tail, core::crc32(head)), core::crc32(check));
  EXPECT_EQ(core::crc64(tail, core::crc64(head)), core::crc64(check));
}

TEST(Xz, StreamsFromAnotherEncoder) {
  for (const char* name : texts) {
    const Bytes text = read_vector(std::string(name) + ".txt");
    for (const char* level : {"0", "9"}) {
      const Bytes stream = read_vector(std::string(name) + "." + level + ".xz");
      EXPECT_EQ(core::unxz(stream, no_limit), text) << name << " at level " << level;
      if (!text.empty()) EXPECT_THROW(core::unxz(stream, text.size() - 1), Error) << name;
    }
  }
}

TEST(Xz, TarMembersInOrder) {
  const Bytes tar = read_vector("some.tar");
  const auto members = core::tar_members(tar);
  ASSERT_EQ(members.size(), 3u);
  const char* names[] = {"one.txt", "three.txt", "empty.txt"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(members[i].name, names[i]);
    EXPECT_EQ(Bytes(members[i].data.begin(), members[i].data.end()), read_vector(names[i])) << names[i];
  }
  Bytes bad = tar;
  bad[130] ^= 1;  // one.txt's size: the header checksum no longer matches
  EXPECT_THROW(core::tar_members(bad), Error);
  EXPECT_THROW(core::tar_members(Bytes(tar.begin(), tar.begin() + 1000)), Error);  // no end blocks
}

// Every seeded flip, overwrite or truncation throws gpuscan::Error: each part of an xz stream is under a check.
TEST(Xz, CorruptionNeverGivesOtherData) {
  std::mt19937 rng(20261206);
  for (const char* name : {"three.9.xz", "long_text.0.xz", "long_text.9.xz", "packed.9.xz", "noise.0.xz"}) {
    const Bytes good = read_vector(name);
    const std::string text_name = std::string(name).substr(0, std::string(name).find('.')) + ".txt";
    const Bytes text = read_vector(text_name);
    int thrown = 0, changed = 0;
    for (int trial = 0; trial < 200; ++trial) {
      Bytes bad = good;
      switch (trial % 3) {
        case 0: bad[rng() % bad.size()] ^= uint8_t(1u << (rng() % 8)); break;
        case 1: bad[rng() % bad.size()] = uint8_t(rng()); break;
        default: bad.resize(rng() % bad.size()); break;
      }
      if (bad == good) continue;  // an overwrite with the same byte
      ++changed;
      try {
        EXPECT_EQ(core::unxz(bad, no_limit), text) << name << " trial " << trial << " was not detected";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::invalid_argument);
        ++thrown;
      }
    }
    EXPECT_EQ(thrown, changed) << name;
  }
}

}  // namespace
}  // namespace gpuscan::test
