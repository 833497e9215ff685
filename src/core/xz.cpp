// An LZMA2 decoder written for clarity over speed: 41 MB/s on the development machine's CPU, so the largest
// embedded group (single_pass.f64, 0.89 MB) unpacks in 22 ms, and a typical one of two modules in about 1 ms,
// next to the tens of milliseconds a driver takes to compile each of its pipelines. Written after the .xz file
// format specification 1.1.0 and the LZMA algorithm as LZMA2 uses it: a binary range coder with adaptive
// 11-bit probabilities, literals coded against the byte at the last match distance, lengths and distances
// from bit trees.
#include "core/xz.hpp"

#include <algorithm>
#include <array>

#include "gpuscan/error.hpp"

namespace gpuscan::core {
namespace {

[[noreturn]] void fail(const std::string& what) { throw Error(Errc::invalid_argument, "xz data: " + what); }

// Bytes of `in` from a position, never past its end.
class Reader {
 public:
  Reader(std::span<const uint8_t> in, size_t pos = 0) : in_(in), pos_(pos) {}
  uint8_t byte() {
    if (pos_ >= in_.size()) fail("truncated");
    return in_[pos_++];
  }
  std::span<const uint8_t> take(size_t n) {
    if (n > in_.size() - pos_) fail("truncated");
    pos_ += n;
    return in_.subspan(pos_ - n, n);
  }
  uint32_t le32() {
    const auto b = take(4);
    return b[0] | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  }
  // xz's variable-length integers: 7 bits a byte, least significant first, at most 9 bytes.
  uint64_t varint() {
    uint64_t value = 0;
    for (int i = 0; i < 9; ++i) {
      const uint8_t b = byte();
      value |= uint64_t(b & 0x7fu) << (7 * i);
      if (!(b & 0x80u)) {
        if (i > 0 && b == 0) fail("over-long variable-length integer");
        return value;
      }
    }
    fail("variable-length integer longer than 9 bytes");
  }
  size_t position() const { return pos_; }
  size_t left() const { return in_.size() - pos_; }

 private:
  std::span<const uint8_t> in_;
  size_t pos_;
};

// ---- LZMA --------------------------------------------------------------------------------------------------

constexpr uint32_t top = 1u << 24;
constexpr int probability_bits = 11, move_bits = 5;
using Prob = uint16_t;
constexpr Prob initial_probability = 1u << (probability_bits - 1);

class RangeDecoder {
 public:
  explicit RangeDecoder(std::span<const uint8_t> in) : in_(in) {
    if (in_.size() < 5 || in_[0] != 0) fail("LZMA chunk does not start a range coder");
    for (int i = 1; i < 5; ++i) code_ = code_ << 8 | in_[i];
    pos_ = 5;
    if (code_ == range_) fail("corrupt range coder state");
  }
  uint32_t bit(Prob& p) {
    const uint32_t bound = (range_ >> probability_bits) * p;
    uint32_t b;
    if (code_ < bound) {
      range_ = bound;
      p = Prob(p + (((1u << probability_bits) - p) >> move_bits));
      b = 0;
    } else {
      range_ -= bound;
      code_ -= bound;
      p = Prob(p - (p >> move_bits));
      b = 1;
    }
    normalize();
    return b;
  }
  // `n` bits of probability one half, most significant first.
  uint32_t direct(int n) {
    uint32_t value = 0;
    while (n--) {
      range_ >>= 1;
      const uint32_t b = code_ >= range_ ? 1u : 0u;
      if (b) code_ -= range_;
      value = value << 1 | b;
      normalize();
    }
    return value;
  }
  // A bit tree of `n` bits: the symbol's bits most significant first, each coded in the context of those before.
  uint32_t tree(Prob* probs, int n) {
    uint32_t m = 1;
    for (int i = 0; i < n; ++i) m = m << 1 | bit(probs[m]);
    return m - (1u << n);
  }
  // The same with the bits least significant first.
  uint32_t reverse_tree(Prob* probs, int n) {
    uint32_t m = 1, symbol = 0;
    for (int i = 0; i < n; ++i) {
      const uint32_t b = bit(probs[m]);
      m = m << 1 | b;
      symbol |= b << i;
    }
    return symbol;
  }
  // The encoder's flush leaves the code at zero with every byte of the chunk read.
  bool finished() const { return code_ == 0 && pos_ == in_.size(); }

 private:
  void normalize() {
    if (range_ < top) {
      if (pos_ >= in_.size()) fail("LZMA chunk ends early");
      range_ <<= 8;
      code_ = code_ << 8 | in_[pos_++];
    }
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
  uint32_t range_ = 0xffffffffu;
  uint32_t code_ = 0;
};

constexpr int states = 12, max_pos_bits = 4, min_match = 2;
constexpr int end_pos_model = 14, full_distances = 1 << (end_pos_model >> 1), align_bits = 4;

struct LengthCoder {
  Prob choice, choice2;
  Prob low[1 << max_pos_bits][1 << 3], mid[1 << max_pos_bits][1 << 3], high[1 << 8];
  void reset() {
    choice = choice2 = initial_probability;
    std::fill(&low[0][0], &low[0][0] + sizeof(low) / sizeof(Prob), initial_probability);
    std::fill(&mid[0][0], &mid[0][0] + sizeof(mid) / sizeof(Prob), initial_probability);
    std::fill(std::begin(high), std::end(high), initial_probability);
  }
  // 0 .. 271: the match length less min_match.
  uint32_t decode(RangeDecoder& rc, uint32_t pos_state) {
    if (!rc.bit(choice)) return rc.tree(low[pos_state], 3);
    if (!rc.bit(choice2)) return 8 + rc.tree(mid[pos_state], 3);
    return 16 + rc.tree(high, 8);
  }
};

class Lzma2Decoder {
 public:
  Lzma2Decoder(std::vector<uint8_t>& out, size_t max_bytes) : out_(out), max_(max_bytes) {}

  // Decodes one block's LZMA2 chunks from `in` up to and including the end marker.
  void run(Reader& in) {
    bool dict_ready = false, props_ready = false;
    for (;;) {
      const uint8_t control = in.byte();
      if (control == 0x00) return;
      if (control == 0x01 || control == 0x02) {  // uncompressed; 0x01 resets the dictionary
        if (control == 0x01) dict_start_ = out_.size(), dict_ready = true;
        if (!dict_ready) fail("first LZMA2 chunk does not reset the dictionary");
        const size_t size = (size_t(in.byte()) << 8 | in.byte()) + 1;
        for (uint8_t b : in.take(size)) put(b);
        continue;
      }
      if (control < 0x80) fail("invalid LZMA2 control byte");
      const size_t unpacked = (size_t(control & 0x1fu) << 16 | size_t(in.byte()) << 8 | in.byte()) + 1;
      const size_t packed = (size_t(in.byte()) << 8 | in.byte()) + 1;
      const int reset = (control >> 5) & 3;  // 0 none, 1 state, 2 state + properties, 3 and the dictionary
      if (reset == 3) dict_start_ = out_.size(), dict_ready = true;
      if (!dict_ready) fail("first LZMA2 chunk does not reset the dictionary");
      if (reset >= 2) {
        set_properties(in.byte());
        props_ready = true;
      }
      if (!props_ready) fail("LZMA chunk before any properties");
      if (reset >= 1) reset_state();
      RangeDecoder rc(in.take(packed));
      decode(rc, out_.size() + unpacked);
      if (!rc.finished()) fail("LZMA chunk's coded size does not match its data");
    }
  }

 private:
  void set_properties(uint8_t props) {
    if (props >= 9 * 5 * 5) fail("invalid LZMA properties");
    lc_ = props % 9;
    lp_ = (props / 9) % 5;
    pb_ = props / 45;
    if (lc_ + lp_ > 4) fail("LZMA2 allows lc + lp <= 4");
    literal_.assign(size_t(0x300) << (lc_ + lp_), initial_probability);
  }

  void reset_state() {
    state_ = 0;
    rep_ = {0, 0, 0, 0};
    std::fill(&is_match_[0][0], &is_match_[0][0] + states * (1 << max_pos_bits), initial_probability);
    std::fill(&is_rep0_long_[0][0], &is_rep0_long_[0][0] + states * (1 << max_pos_bits), initial_probability);
    for (Prob* p : {is_rep_, is_rep_g0_, is_rep_g1_, is_rep_g2_}) std::fill(p, p + states, initial_probability);
    std::fill(&pos_slot_[0][0], &pos_slot_[0][0] + 4 * 64, initial_probability);
    std::fill(std::begin(pos_special_), std::end(pos_special_), initial_probability);
    std::fill(std::begin(align_), std::end(align_), initial_probability);
    std::fill(literal_.begin(), literal_.end(), initial_probability);
    length_.reset();
    rep_length_.reset();
  }

  void put(uint8_t b) {
    if (out_.size() >= max_) fail("more than " + std::to_string(max_) + " bytes of data");
    out_.push_back(b);
  }
  // The byte `distance` + 1 back (distance 0: the last byte written).
  uint8_t back(uint32_t distance) const { return out_[out_.size() - 1 - distance]; }
  size_t dict_size() const { return out_.size() - dict_start_; }

  void decode(RangeDecoder& rc, size_t end) {
    if (end > max_) fail("more than " + std::to_string(max_) + " bytes of data");
    while (out_.size() < end) {
      const uint32_t pos_state = uint32_t(out_.size() - dict_start_) & ((1u << pb_) - 1);
      if (!rc.bit(is_match_[state_][pos_state])) {
        literal(rc);
        continue;
      }
      uint32_t len;
      if (!rc.bit(is_rep_[state_])) {  // a new distance
        len = length_.decode(rc, pos_state);
        state_ = state_ < 7 ? 7 : 10;
        const uint32_t distance = this->distance(rc, len);
        if (distance == 0xffffffffu) fail("end marker inside an LZMA2 chunk");
        rep_ = {distance, rep_[0], rep_[1], rep_[2]};
      } else {
        if (dict_size() == 0) fail("repeated match before any data");
        if (!rc.bit(is_rep_g0_[state_])) {
          if (!rc.bit(is_rep0_long_[state_][pos_state])) {  // one byte at the last distance
            state_ = state_ < 7 ? 9 : 11;
            if (rep_[0] >= dict_size()) fail("distance past the dictionary");
            put(back(rep_[0]));
            continue;
          }
        } else {
          uint32_t distance;
          if (!rc.bit(is_rep_g1_[state_])) {
            distance = rep_[1];
          } else {
            if (!rc.bit(is_rep_g2_[state_])) {
              distance = rep_[2];
            } else {
              distance = rep_[3];
              rep_[3] = rep_[2];
            }
            rep_[2] = rep_[1];
          }
          rep_[1] = rep_[0];
          rep_[0] = distance;
        }
        len = rep_length_.decode(rc, pos_state);
        state_ = state_ < 7 ? 8 : 11;
      }
      if (rep_[0] >= dict_size()) fail("distance past the dictionary");
      const size_t count = len + min_match;
      if (count > end - out_.size()) fail("match past the chunk's end");
      for (size_t k = 0; k < count; ++k) put(back(rep_[0]));
    }
  }

  void literal(RangeDecoder& rc) {
    const uint32_t previous = dict_size() > 0 ? back(0) : 0;
    const uint32_t position = uint32_t(dict_size());
    const uint32_t context = ((position & ((1u << lp_) - 1)) << lc_) + (previous >> (8 - lc_));
    Prob* probs = literal_.data() + size_t(0x300) * context;
    uint32_t symbol = 1;
    if (state_ >= 7) {  // after a match: code against the byte at the last distance while the bits agree
      if (rep_[0] >= dict_size()) fail("distance past the dictionary");
      uint32_t match = back(rep_[0]);
      while (symbol < 0x100) {
        const uint32_t match_bit = (match >> 7) & 1;
        match <<= 1;
        const uint32_t b = rc.bit(probs[((1 + match_bit) << 8) + symbol]);
        symbol = symbol << 1 | b;
        if (match_bit != b) break;
      }
    }
    while (symbol < 0x100) symbol = symbol << 1 | rc.bit(probs[symbol]);
    put(uint8_t(symbol - 0x100));
    state_ = state_ < 4 ? 0 : state_ < 10 ? state_ - 3 : state_ - 6;
  }

  // The distance less one; 0xffffffff is the end marker.
  uint32_t distance(RangeDecoder& rc, uint32_t len) {
    const uint32_t slot = rc.tree(pos_slot_[std::min<uint32_t>(len, 3)], 6);
    if (slot < 4) return slot;
    const int direct_bits = int(slot >> 1) - 1;
    uint32_t distance = (2 | (slot & 1)) << direct_bits;
    if (slot < end_pos_model) return distance + rc.reverse_tree(pos_special_ + distance - slot, direct_bits);
    distance += rc.direct(direct_bits - align_bits) << align_bits;
    return distance + rc.reverse_tree(align_, align_bits);
  }

  std::vector<uint8_t>& out_;
  size_t max_;
  size_t dict_start_ = 0;
  uint32_t lc_ = 0, lp_ = 0, pb_ = 0;
  uint32_t state_ = 0;
  std::array<uint32_t, 4> rep_{};
  Prob is_match_[states][1 << max_pos_bits];
  Prob is_rep_[states], is_rep_g0_[states], is_rep_g1_[states], is_rep_g2_[states];
  Prob is_rep0_long_[states][1 << max_pos_bits];
  Prob pos_slot_[4][64];
  Prob pos_special_[1 + full_distances - end_pos_model];
  Prob align_[1 << align_bits];
  std::vector<Prob> literal_;
  LengthCoder length_, rep_length_;
};

// ---- the xz container ----------------------------------------------------------------------------------------

constexpr uint8_t header_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
constexpr uint8_t check_none = 0x00, check_crc32 = 0x01, check_crc64 = 0x04;
constexpr uint64_t lzma2_filter = 0x21;

size_t check_size(uint8_t check) { return check == check_none ? 0 : check == check_crc32 ? 4 : 8; }

struct BlockRecord {
  uint64_t unpadded;  // header + compressed data + check
  uint64_t uncompressed;
};

// One block from its header on; appends its data to `out`.
BlockRecord block(Reader& in, uint8_t check, std::vector<uint8_t>& out, size_t max_bytes) {
  const size_t start = in.position();
  const size_t header_size = (size_t(in.byte()) + 1) * 4;
  if (header_size < 8) fail("block header too short");
  const std::span<const uint8_t> header_rest = in.take(header_size - 1 - 4);
  const uint32_t header_crc = in.le32();
  std::vector<uint8_t> header_bytes(header_size - 4);
  header_bytes[0] = uint8_t(header_size / 4 - 1);
  std::copy(header_rest.begin(), header_rest.end(), header_bytes.begin() + 1);
  if (crc32(header_bytes) != header_crc) fail("block header CRC-32 does not match");

  Reader header(header_bytes, 1);
  const uint8_t flags = header.byte();
  if (flags & 0x3cu) fail("reserved block flags set");
  if ((flags & 0x03u) != 0) fail("filters other than LZMA2 alone are not supported");
  const uint64_t compressed_size = (flags & 0x40u) ? header.varint() : 0;
  const uint64_t uncompressed_size = (flags & 0x80u) ? header.varint() : 0;
  if (header.varint() != lzma2_filter) fail("filters other than LZMA2 are not supported");
  if (header.varint() != 1) fail("LZMA2 filter properties are not one byte");
  if (header.byte() > 40) fail("LZMA2 dictionary size out of range");
  while (header.left() > 0)
    if (header.byte() != 0) fail("non-zero block header padding");

  const size_t data_start = in.position(), out_start = out.size();
  Lzma2Decoder(out, max_bytes).run(in);
  const uint64_t compressed = in.position() - data_start, uncompressed = out.size() - out_start;
  if ((flags & 0x40u) && compressed != compressed_size) fail("block's compressed size does not match its header");
  if ((flags & 0x80u) && uncompressed != uncompressed_size) fail("block's size does not match its header");
  while ((in.position() - start) % 4 != 0)
    if (in.byte() != 0) fail("non-zero block padding");
  const std::span<const uint8_t> data(out.data() + out_start, uncompressed);
  const std::span<const uint8_t> stored = in.take(check_size(check));
  uint64_t value = 0;
  for (size_t i = 0; i < stored.size(); ++i) value |= uint64_t(stored[i]) << (8 * i);
  if (check == check_crc32 && value != crc32(data)) fail("block CRC-32 does not match its data");
  if (check == check_crc64 && value != crc64(data)) fail("block CRC-64 does not match its data");
  return {(data_start - start) + compressed + stored.size(), uncompressed};
}

// Reflected CRCs (xz's CRC-32 and CRC-64), a byte at a time from a table of the polynomial's remainders.
template <typename U>
std::array<U, 256> crc_table(U polynomial) {
  std::array<U, 256> t{};
  for (U n = 0; n < 256; ++n) {
    U c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? polynomial ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
  return t;
}

template <typename U>
U reflected_crc(std::span<const uint8_t> bytes, U crc, const std::array<U, 256>& table) {
  crc = ~crc;
  for (uint8_t b : bytes) crc = table[(crc ^ b) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

}  // namespace

uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc) {
  static const auto table = crc_table<uint32_t>(0xEDB88320u);
  return reflected_crc(bytes, crc, table);
}

uint64_t crc64(std::span<const uint8_t> bytes, uint64_t crc) {
  static const auto table = crc_table<uint64_t>(0xC96C5795D7870F42ull);
  return reflected_crc(bytes, crc, table);
}

std::vector<uint8_t> unxz(std::span<const uint8_t> stream, size_t max_bytes) {
  Reader in(stream);
  const auto magic = in.take(6);
  if (!std::equal(magic.begin(), magic.end(), header_magic)) fail("not xz (bad magic)");
  const auto flags = in.take(2);
  if (crc32(flags) != in.le32()) fail("stream header CRC-32 does not match");
  const uint8_t check = flags[1];
  if (flags[0] != 0 || (check != check_none && check != check_crc32 && check != check_crc64))
    fail("unsupported stream flags (check type " + std::to_string(check) + ")");

  std::vector<uint8_t> out;
  std::vector<BlockRecord> blocks;
  while (in.left() > 0 && stream[in.position()] != 0x00) blocks.push_back(block(in, check, out, max_bytes));

  // The index: its records must be the blocks'.
  const size_t index_start = in.position();
  in.byte();  // the index indicator, 0x00
  if (in.varint() != blocks.size()) fail("index does not list every block");
  for (const BlockRecord& b : blocks)
    if (in.varint() != b.unpadded || in.varint() != b.uncompressed) fail("index record does not match its block");
  while ((in.position() - index_start) % 4 != 0)
    if (in.byte() != 0) fail("non-zero index padding");
  const size_t index_size = in.position() - index_start;
  if (crc32(stream.subspan(index_start, index_size)) != in.le32()) fail("index CRC-32 does not match");

  // The footer: CRC-32 of backward size and flags, the index size, the flags again, "YZ".
  const uint32_t footer_crc = in.le32();
  const auto footer = in.take(6);
  if (crc32(footer) != footer_crc) fail("stream footer CRC-32 does not match");
  const uint64_t backward = (uint64_t(footer[0]) | uint64_t(footer[1]) << 8 | uint64_t(footer[2]) << 16 |
                             uint64_t(footer[3]) << 24) + 1;
  if (backward * 4 != index_size + 4) fail("stream footer's index size does not match the index");
  if (footer[4] != flags[0] || footer[5] != flags[1]) fail("stream footer's flags differ from the header's");
  const auto end_magic = in.take(2);
  if (end_magic[0] != 'Y' || end_magic[1] != 'Z') fail("bad stream footer magic");
  if (in.left() != 0) fail("data after the stream");
  return out;
}

std::vector<TarMember> tar_members(std::span<const uint8_t> archive) {
  std::vector<TarMember> members;
  constexpr size_t block = 512;
  for (size_t at = 0;;) {
    if (archive.size() - at < block) fail("tar archive ends without its end blocks");
    const std::span<const uint8_t> h = archive.subspan(at, block);
    if (std::all_of(h.begin(), h.end(), [](uint8_t b) { return b == 0; })) return members;
    auto field = [&](size_t offset, size_t length) {
      std::string s(reinterpret_cast<const char*>(h.data()) + offset, length);
      return s.substr(0, s.find('\0'));
    };
    auto octal = [&](size_t offset, size_t length) {
      uint64_t value = 0;
      bool digits = false;
      for (char c : field(offset, length)) {
        if (c == ' ' && !digits) continue;
        if (c == ' ') break;
        if (c < '0' || c > '7' || value >> 60) fail("tar header field is not an octal number");
        value = value * 8 + uint64_t(c - '0'), digits = true;
      }
      return value;
    };
    uint64_t sum = 0;
    for (size_t i = 0; i < block; ++i) sum += (i >= 148 && i < 156) ? uint8_t(' ') : h[i];
    if (octal(148, 8) != sum) fail("tar header checksum does not match");
    const uint64_t size = octal(124, 12);
    at += block;
    if (size > archive.size() - at) fail("tar member runs past the archive");
    const char type = char(h[156]);
    std::string name = field(0, 100);
    if (field(257, 5) == "ustar" && !field(345, 155).empty()) name = field(345, 155) + "/" + name;
    if (type == '0' || type == '\0') members.push_back({name, archive.subspan(at, size)});
    at += (size + block - 1) / block * block;
    if (at > archive.size()) fail("tar member's padding runs past the archive");
  }
}

}  // namespace gpuscan::core
