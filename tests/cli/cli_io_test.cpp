// Unit tests of the CLI's file formats (tools/gpuscan/io.*): round trips through both formats for every
// type, and every kind of malformed input, whose message must name the file and the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "gpuscan/error.hpp"
#include "io.hpp"

namespace gpuscan::cli {
namespace {

namespace fs = std::filesystem;

// A directory of its own for each test, removed afterwards.
class CliFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("gpuscan_cli_io_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_file(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
  }

  fs::path dir_;
};

const std::vector<uint32_t> u32_values = {0, 1, 42, 65535, 65536, 2147483647u, 2147483648u, 4294967295u};
const std::vector<int32_t> i32_values = {0, 1, -1, 42, -42, std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int32_t>::min()};
const std::vector<float> f32_values = {0.0f,
                                       -0.0f,
                                       1.0f,
                                       -2.5f,
                                       0.1f,
                                       1.0f / 3.0f,
                                       3.14159265f,
                                       1e-40f,  // subnormal
                                       std::numeric_limits<float>::min(),
                                       std::numeric_limits<float>::max(),
                                       -std::numeric_limits<float>::max(),
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(),
                                       16777217.0f,
                                       123456.789f};

// Bitwise equality, so that -0.0f and 0.0f count as different.
template <class T>
void expect_same_bits(const std::vector<T>& want, const std::vector<std::byte>& got) {
  ASSERT_EQ(got.size(), want.size() * sizeof(T));
  // Empty vectors may hold null pointers, which memcmp must not get (UBSan: nonnull argument).
  if (!got.empty()) EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0);
}

// Asserts that parse_text throws parse_error naming "<source>:<line>:" and containing `fragment`.
void expect_parse_error(std::string_view text, DataType type, size_t line, const std::string& fragment) {
  try {
    parse_text(text, type, "data.txt");
    ADD_FAILURE() << "no error for " << ::testing::PrintToString(std::string(text)) << " as " << to_string(type);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::parse_error) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("data.txt:" + std::to_string(line) + ": ", 0), 0)
        << "message should start with data.txt:" << line << ": -- got: " << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << "expected '" << fragment << "' in: " << message;
  }
}

// --- Text: parsing and formatting ---------------------------------------------------------------------

TEST(CliText, FormatsOneNumberPerLine) {
  EXPECT_EQ(format_text(std::as_bytes(std::span(u32_values)), DataType::u32),
            "0\n1\n42\n65535\n65536\n2147483647\n2147483648\n4294967295\n");
  EXPECT_EQ(format_text(std::as_bytes(std::span(i32_values)), DataType::i32),
            "0\n1\n-1\n42\n-42\n2147483647\n-2147483648\n");
  const std::vector<float> f = {0.1f, -2.5f, 1e-40f, 16777216.0f};
  EXPECT_EQ(format_text(std::as_bytes(std::span(f)), DataType::f32), "0.1\n-2.5\n1e-40\n16777216\n");
  EXPECT_EQ(format_text({}, DataType::u32), "");
}

TEST(CliText, RoundTripsU32) {
  expect_same_bits(u32_values, parse_text(format_text(std::as_bytes(std::span(u32_values)), DataType::u32),
                                          DataType::u32, "t"));
}

TEST(CliText, RoundTripsI32) {
  expect_same_bits(i32_values, parse_text(format_text(std::as_bytes(std::span(i32_values)), DataType::i32),
                                          DataType::i32, "t"));
}

TEST(CliText, RoundTripsF32Exactly) {
  expect_same_bits(f32_values, parse_text(format_text(std::as_bytes(std::span(f32_values)), DataType::f32),
                                          DataType::f32, "t"));
  // Shortest round-trip form, over many bit patterns.
  std::vector<float> many;
  for (uint32_t bits = 0x00000001u; bits < 0x7f800000u; bits += 0x00012345u) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    many.push_back(f);
    many.push_back(-f);
  }
  expect_same_bits(many, parse_text(format_text(std::as_bytes(std::span(many)), DataType::f32),
                                    DataType::f32, "t"));
}

TEST(CliText, NanSurvivesAsNan) {
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  const auto parsed = values_from_bytes<float>(
      parse_text(format_text(std::as_bytes(std::span(nan)), DataType::f32), DataType::f32, "t"));
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_TRUE(std::isnan(parsed[0]));
}

TEST(CliText, AcceptsTrailingBlankLinesSurroundingBlanksAndCrlf) {
  const std::vector<uint32_t> want = {1, 2, 3};
  for (const char* text : {"1\n2\n3", "1\n2\n3\n", "1\n2\n3\n\n", "1\n2\n3\n\n\n  \n", "1\r\n2\r\n3\r\n",
                           " 1\n\t2 \n3\t\n"})
    expect_same_bits(want, parse_text(text, DataType::u32, "t"));
}

TEST(CliText, EmptyInputIsZeroElements) {
  EXPECT_TRUE(parse_text("", DataType::u32, "t").empty());
  EXPECT_TRUE(parse_text("\n", DataType::f32, "t").empty());
  EXPECT_TRUE(parse_text("\n\n \n", DataType::i32, "t").empty());
}

TEST(CliText, AcceptsTheWholeRangeOfEachType) {
  expect_same_bits(std::vector<uint32_t>{0, 4294967295u}, parse_text("0\n4294967295\n", DataType::u32, "t"));
  expect_same_bits(std::vector<int32_t>{-2147483648, 2147483647},
                   parse_text("-2147483648\n2147483647\n", DataType::i32, "t"));
  expect_same_bits(std::vector<uint32_t>{7, 0}, parse_text("007\n-0\n", DataType::u32, "t"));
  expect_same_bits(std::vector<float>{1.5f, -0.002f, 100.0f, 0.5f},
                   parse_text("1.5\n-2e-3\n1E2\n.5\n", DataType::f32, "t"));
}

TEST(CliText, SixtyFourBitTypes) {
  const std::vector<uint64_t> u64 = {0, 1, 4294967296ull, 18446744073709551615ull};
  expect_same_bits(u64, parse_text("0\n1\n4294967296\n18446744073709551615\n", DataType::u64, "t"));
  const std::vector<int64_t> i64 = {std::numeric_limits<int64_t>::min(), -1, 0, std::numeric_limits<int64_t>::max()};
  expect_same_bits(i64, parse_text("-9223372036854775808\n-1\n0\n9223372036854775807\n", DataType::i64, "t"));
  const std::vector<double> f64 = {0.1, -2.5e-300, 1.0 / 3.0, std::numeric_limits<double>::max()};
  expect_same_bits(f64, parse_text(format_text(std::as_bytes(std::span(f64)), DataType::f64), DataType::f64, "t"));
  EXPECT_EQ(format_text(std::as_bytes(std::span(u64)), DataType::u64), "0\n1\n4294967296\n18446744073709551615\n");
  expect_parse_error("-1\n", DataType::u64, 1, "'-1' is out of range for u64");
  expect_parse_error("-0\n1\n18446744073709551616\n", DataType::u64, 3, "out of range for u64");
  expect_parse_error("9223372036854775808\n", DataType::i64, 1, "out of range for i64");
  expect_parse_error("-\n", DataType::u64, 1, "'-' is not a valid u64 number");
  expect_parse_error("1e999\n", DataType::f64, 1, "'1e999' is out of range for f64");
  expect_parse_error("x\n", DataType::f64, 1, "'x' is not a valid f64 number");
}

TEST(CliText, RejectsNonNumbersWithLineNumber) {
  expect_parse_error("1\n2\n12x\n4\n", DataType::u32, 3, "'12x' is not a valid u32 number");
  expect_parse_error("abc\n", DataType::u32, 1, "'abc' is not a valid u32 number");
  expect_parse_error("5\nabc", DataType::i32, 2, "'abc' is not a valid i32 number");
  expect_parse_error("1\n2\nabc\n", DataType::f32, 3, "'abc' is not a valid f32 number");
  expect_parse_error("1.5\n", DataType::u32, 1, "'1.5'");
  expect_parse_error("1e3\n", DataType::i32, 1, "'1e3'");
  expect_parse_error("0x10\n", DataType::u32, 1, "'0x10'");
  expect_parse_error("+5\n", DataType::i32, 1, "'+5'");
  expect_parse_error("1 2\n", DataType::u32, 1, "'1 2'");
  expect_parse_error("1,5\n", DataType::f32, 1, "'1,5'");
  expect_parse_error("1.0f\n", DataType::f32, 1, "'1.0f'");
  expect_parse_error("1e\n", DataType::f32, 1, "'1e'");
  expect_parse_error("-\n", DataType::i32, 1, "'-'");
}

TEST(CliText, RejectsOutOfRangeWithLineNumber) {
  expect_parse_error("1\n4294967296\n", DataType::u32, 2, "'4294967296' is out of range for u32 (0 to 4294967295)");
  expect_parse_error("-1\n", DataType::u32, 1, "'-1' is out of range for u32");
  expect_parse_error("1\n2\n-4294967295\n", DataType::u32, 3, "out of range for u32");
  expect_parse_error("99999999999999999999999\n", DataType::u32, 1, "out of range for u32");
  expect_parse_error("2147483648\n", DataType::i32, 1, "'2147483648' is out of range for i32");
  expect_parse_error("0\n-2147483649\n", DataType::i32, 2, "'-2147483649' is out of range for i32");
  expect_parse_error("1\n1e39\n", DataType::f32, 2, "'1e39' is out of range for f32");
  expect_parse_error("-1e39\n", DataType::f32, 1, "out of range for f32");
  expect_parse_error("1e-50\n", DataType::f32, 1, "out of range for f32");
}

TEST(CliText, RejectsEmptyLineBetweenNumbers) {
  expect_parse_error("1\n\n2\n", DataType::u32, 2, "empty line");
  expect_parse_error("1\n2\n3\n \n\n6\n", DataType::i32, 4, "line 6");
  expect_parse_error("\n5\n", DataType::f32, 1, "empty line");
}

TEST(CliText, CutsShortVeryLongTokens) {
  const std::string junk(1000, 'z');
  try {
    parse_text(junk, DataType::u32, "data.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
  }
}

// A binary file read as text: the bad bytes are shown escaped, never raw (a NUL would end the message
// where main() prints it as a C string; control bytes would reach the terminal), with a hint.
TEST(CliText, QuotesBinaryBytesEscapedWithAHint) {
  const uint32_t five[] = {1, 2, 3, 4, 5};
  const std::string binary(reinterpret_cast<const char*>(five), sizeof five);
  expect_parse_error(binary, DataType::u32, 1,
                     "'\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00\\x03\\x00\\x00\\x00\\x04\\x00\\x00\\x00"
                     "\\x05\\x00\\x00\\x00' is not a valid u32 number (is it binary? use --format binary)");
  std::string random(4000, '\0');
  for (size_t i = 0; i < random.size(); ++i) random[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::replace(random.begin(), random.end(), '\n', '\0');  // one long line: the token is cut short
  for (const DataType type : {DataType::u32, DataType::f32}) {
    try {
      parse_text(random, type, "data.bin");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.size(), std::strlen(e.what())) << "a NUL in the message";
      for (const char c : message) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << int(byte) << " in: " << message;
      }
      EXPECT_NE(message.find("...' is not a valid"), std::string::npos) << message;  // cut short
      EXPECT_LT(message.size(), 300u) << message;
      EXPECT_NE(message.find("(is it binary? use --format binary)"), std::string::npos) << message;
    }
  }
  // Printable ASCII stays as it is, a backslash is doubled so that it cannot pass for an escape; the hint
  // comes for a control byte anywhere in the input, not only in the bad token.
  expect_parse_error("1\n2x\\y\n", DataType::u32, 2, "'2x\\\\y' is not a valid u32 number");
  expect_parse_error("1\nabc\n\x7f\n", DataType::u32, 2, "'abc' is not a valid u32 number (is it binary?");
  expect_parse_error("1\n\n\x01\n", DataType::u32, 2, "empty line between numbers");
  expect_parse_error("1\n\n\x01\n", DataType::u32, 2, "(is it binary? use --format binary)");
  expect_parse_error("1\n\xc3\xa9\n", DataType::u32, 2, "'\\xc3\\xa9' is not a valid u32 number");
}

TEST(CliText, TextErrorsHaveNoBinaryHint) {
  for (const char* text : {"1\nabc\n", "1\t\n\v\f\r\nx\r\n", "1\n\n2\n"}) {
    try {
      parse_text(text, DataType::u32, "data.txt");
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(std::string(text));
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find("binary"), std::string::npos) << e.what();
    }
  }
}

TEST(CliText, FormatsSingleElements) {
  const std::vector<int32_t> v = {5, -7, 9};
  EXPECT_EQ(format_element(std::as_bytes(std::span(v)), DataType::i32, 1), "-7");
  const std::vector<float> f = {0.3f};
  EXPECT_EQ(format_element(std::as_bytes(std::span(f)), DataType::f32, 0), "0.3");
}

// --- Binary ------------------------------------------------------------------------------------------

TEST(CliBinary, SizeMustBeAMultipleOfFour) {
  EXPECT_NO_THROW(check_binary_size(0, DataType::u32, "x.bin"));
  EXPECT_NO_THROW(check_binary_size(400, DataType::f32, "x.bin"));
  for (uint64_t size : {1, 2, 3, 5, 401}) {
    try {
      check_binary_size(size, DataType::f32, "x.bin");
      ADD_FAILURE() << "size " << size << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::parse_error);
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("x.bin: ", 0), 0) << message;
      EXPECT_NE(message.find("not a multiple of 4"), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(size)), std::string::npos) << message;
    }
  }
}

// --- Files -------------------------------------------------------------------------------------------

template <class T>
void round_trip_file(const std::string& file, const std::vector<T>& values, FileFormat format) {
  constexpr DataType type = data_type_of<T>::value;
  write_values(file, std::as_bytes(std::span(values)), type, format);
  process_outputs().commit();
  expect_same_bits(values, read_values(file, type, format));
}

TEST_F(CliFiles, BinaryRoundTrip) {
  round_trip_file(path("u.bin"), u32_values, FileFormat::binary);
  round_trip_file(path("i.bin"), i32_values, FileFormat::binary);
  round_trip_file(path("f.bin"), f32_values, FileFormat::binary);
  round_trip_file(path("empty.bin"), std::vector<uint32_t>{}, FileFormat::binary);
  EXPECT_EQ(fs::file_size(path("u.bin")), u32_values.size() * 4);
}

TEST_F(CliFiles, BinaryIsRawLittleEndian) {
  write_file("le.bin", std::string("\x01\x00\x00\x00\xff\xff\xff\xff\x00\x00\x80\x3f", 12));
  expect_same_bits(std::vector<uint32_t>{1, 4294967295u, 0x3f800000u},
                   read_values(path("le.bin"), DataType::u32, FileFormat::binary));
  expect_same_bits(std::vector<int32_t>{1, -1, 0x3f800000},
                   read_values(path("le.bin"), DataType::i32, FileFormat::binary));
  const auto f = values_from_bytes<float>(read_values(path("le.bin"), DataType::f32, FileFormat::binary));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2], 1.0f);
}

TEST_F(CliFiles, TextRoundTrip) {
  round_trip_file(path("u.txt"), u32_values, FileFormat::text);
  round_trip_file(path("i.txt"), i32_values, FileFormat::text);
  round_trip_file(path("f.txt"), f32_values, FileFormat::text);
  round_trip_file(path("empty.txt"), std::vector<float>{}, FileFormat::text);
}

TEST_F(CliFiles, BinaryFileOfWrongSizeNamesTheFile) {
  write_file("odd.bin", "abcdef");
  try {
    read_values(path("odd.bin"), DataType::u32, FileFormat::binary);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::parse_error);
    EXPECT_NE(std::string(e.what()).find(path("odd.bin") + ": size 6 bytes is not a multiple of 4"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CliFiles, MalformedTextFileNamesFileAndLine) {
  write_file("bad.txt", "10\n20\n30x\n");
  try {
    read_values(path("bad.txt"), DataType::i32, FileFormat::text);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::parse_error);
    EXPECT_EQ(std::string(e.what()).rfind(path("bad.txt") + ":3: '30x'", 0), 0) << e.what();
  }
}

TEST_F(CliFiles, MissingFileIsAnIoError) {
  try {
    read_values(path("missing.bin"), DataType::u32, FileFormat::binary);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::io_error);
    const std::string message = e.what();
    EXPECT_NE(message.find(path("missing.bin")), std::string::npos) << message;
    EXPECT_NE(message.find("No such file"), std::string::npos) << message;
  }
}

TEST_F(CliFiles, UnwritableOutputIsAnIoError) {
  const std::vector<uint32_t> v = {1};
  try {
    write_values(path("no/such/dir/out.bin"), std::as_bytes(std::span(v)), DataType::u32, FileFormat::binary);
    process_outputs().commit();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::io_error);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

// --- Names -------------------------------------------------------------------------------------------

TEST(CliNames, FormatsAndTypes) {
  EXPECT_EQ(parse_file_format("binary"), FileFormat::binary);
  EXPECT_EQ(parse_file_format("text"), FileFormat::text);
  EXPECT_EQ(parse_file_format("txt"), std::nullopt);
  EXPECT_EQ(to_string(FileFormat::text), "text");
  EXPECT_EQ(data_type_names(), "u32, i32, f32, u64, i64, f64");
}

TEST(CliByteSize, ParsesBinarySuffixes) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("64K"), 64u << 10);
  EXPECT_EQ(parse_byte_size("64k"), 64u << 10);
  EXPECT_EQ(parse_byte_size("16M"), 16u << 20);
  EXPECT_EQ(parse_byte_size("16MiB"), 16u << 20);
  EXPECT_EQ(parse_byte_size("1G"), uint64_t{1} << 30);
  EXPECT_EQ(parse_byte_size("2gb"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("3T"), uint64_t{3} << 40);
  EXPECT_EQ(parse_byte_size("100B"), 100u);
  EXPECT_EQ(parse_byte_size("0"), 0u);
  for (const char* bad : {"", "K", "-1", "1.5M", "12Q", "1KK", "1 K", "16Mi", "99999999999999999999", "17179869184G"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

// Streaming binary files in pieces: what the reader delivers is the file; the writer's file lands when
// the process's outputs commit, an empty one too; a size that is not whole elements is refused up front.
TEST_F(CliFiles, BinaryReaderAndWriterStream) {
  std::string content;
  for (int i = 0; i < 1000; ++i) content += static_cast<char>(i * 7);
  write_file("in.bin", content);
  BinaryReader reader(path("in.bin"), DataType::u64);
  ASSERT_EQ(reader.size(), std::optional<uint64_t>(1000));
  BinaryWriter writer(path("out.bin"));
  EXPECT_FALSE(fs::exists(path("out.bin")));
  std::vector<std::byte> buffer(333);
  size_t got = 0;
  while ((got = reader.read(buffer)) > 0) writer.write(std::span(buffer).first(got));
  writer.finish();
  EXPECT_FALSE(fs::exists(path("out.bin")));
  BinaryWriter empty(path("empty.bin"));
  empty.finish();
  process_outputs().commit();
  std::ifstream out(path("out.bin"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(out), {}), content);
  EXPECT_TRUE(fs::exists(path("empty.bin")));
  write_file("odd.bin", "abcdefghij");
  try {
    BinaryReader odd(path("odd.bin"), DataType::u64);
    ADD_FAILURE() << "a 10-byte file is no u64 file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::parse_error);
    EXPECT_NE(std::string(e.what()).find("not a multiple of 8"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuscan::cli
