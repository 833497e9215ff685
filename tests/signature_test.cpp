// The primitives' signatures (gpuscan/signature.hpp): what the CLI and the Python module build on. Each
// registered signature is checked for what a front end relies on: settings that set the description,
// outputs() and output() that agree in every form, input() that passes the arrays through.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpuscan/error.hpp"
#include "gpuscan/signature.hpp"

namespace gpuscan {
namespace {

using RleSignature = Signature<primitive::RunLength>;

const Setting& setting(const std::vector<Setting>& settings, std::string_view name) {
  for (const Setting& s : settings)
    if (s.name == name) return s;
  throw std::runtime_error("no setting " + std::string(name));
}

TEST(Signature, RunLengthSettingsSetTheDescription) {
  primitive::RunLength d;
  const std::vector<Setting> settings = RleSignature::settings(d);
  const Setting& type = setting(settings, "type");
  EXPECT_TRUE(type.element_type);
  EXPECT_EQ(type.choices, (std::vector<std::string_view>{"u32", "i32", "f32", "u64", "i64", "f64"}));
  type.choose("f64");
  EXPECT_EQ(d.config.type, DataType::f64);
  setting(settings, "algorithm").choose("three-pass");
  EXPECT_EQ(d.config.algorithm, CompactAlgorithm::three_pass);
  setting(settings, "path").choose("shared-memory");
  EXPECT_EQ(d.config.path, CompactPath::shared_memory);
  EXPECT_THROW(setting(settings, "path").choose("warp"), Error);
  ASSERT_NE(setting(settings, "non-trivial").flag, nullptr);
  *setting(settings, "non-trivial").flag = true;
  EXPECT_TRUE(d.non_trivial);
  for (const Setting& s : settings) EXPECT_TRUE((s.flag != nullptr) != static_cast<bool>(s.choose)) << s.name;
}

// outputs() names what output() returns, in its order and sizes, in both forms, for random run lengths.
TEST(Signature, RunLengthOutputsAgreeWithOutput) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const bool non_trivial : {false, true})
    for (const DataType type : {DataType::u32, DataType::f64}) {
      primitive::RunLength d{.config = {.type = type}, .non_trivial = non_trivial};
      const uint32_t runs = std::uniform_int_distribution<uint32_t>(0, 50)(rng);
      primitive::RunLength::Output out;
      out.values.resize(non_trivial ? 0 : runs * element_size(type), std::byte{7});
      for (uint32_t r = 0; r < runs; ++r) {
        out.lengths.push_back(static_cast<uint32_t>(rng() % 9 + 1));
        if (non_trivial) out.offsets.push_back(static_cast<uint32_t>(rng()));
      }
      const primitive::RunLength::Output copy = out;
      const std::vector<ArraySpec> specs = RleSignature::outputs(d);
      EXPECT_EQ(RleSignature::result(d, out), std::to_string(runs) + (non_trivial ? " non-trivial runs" : " runs"));
      const std::vector<std::vector<std::byte>> arrays = RleSignature::output(d, std::move(out));
      ASSERT_EQ(arrays.size(), specs.size());
      for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(arrays[i].size(), runs * element_size(specs[i].type));
      EXPECT_EQ(specs[0].name, non_trivial ? "offsets" : "values");
      EXPECT_EQ(specs[1].name, "lengths");
      EXPECT_EQ(specs[1].role, ArrayRole::positions);
      if (runs > 0) EXPECT_EQ(std::memcmp(arrays[1].data(), copy.lengths.data(), arrays[1].size()), 0);
      if (non_trivial && runs > 0) EXPECT_EQ(std::memcmp(arrays[0].data(), copy.offsets.data(), arrays[0].size()), 0);
      if (!non_trivial) EXPECT_EQ(arrays[0], copy.values);
    }
}

TEST(Signature, RunLengthInputIsTheFirstArray) {
  primitive::RunLength d{.config = {.type = DataType::i32}};
  const std::vector<ArraySpec> specs = RleSignature::inputs(d);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].type, DataType::i32);
  const std::vector<std::byte> bytes(12, std::byte{3});
  const std::span<const std::byte> arrays[] = {bytes};
  const primitive::RunLength::Input in = RleSignature::input(d, arrays);
  EXPECT_EQ(in.values.data(), bytes.data());
  EXPECT_EQ(in.values.size(), bytes.size());
}

}  // namespace
}  // namespace gpuscan
