// Record attributes: entries stay inside the record (64 B and 640 B), values are cut at UTF-8
// boundaries, a key has one entry (last-wins for readers either way), validity is preserved.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "recordAttributes.h"
#include "vtctx/utf8.h"

namespace vtctx {
namespace {

constexpr size_t kGuard = 64;  // bytes after the record that must never be written
constexpr uint8_t kGuardByte = 0xa5;

// A record of `size` bytes followed by a guard zone, as the pool lays them out back to back.
class RecordBuffer {
 public:
  explicit RecordBuffer(size_t size) : size_(size), bytes_(size + kGuard + 64) {
    const auto base = reinterpret_cast<uintptr_t>(bytes_.data());
    offset_ = (64 - base % 64) % 64;
    std::memset(bytes_.data(), kGuardByte, bytes_.size());
    std::memset(raw(), 0, size_);
  }
  uint8_t* raw() { return bytes_.data() + offset_; }
  ThreadContextRecord* record() { return reinterpret_cast<ThreadContextRecord*>(raw()); }
  size_t size() const { return size_; }
  bool GuardIntact() {
    for (size_t i = 0; i < kGuard; ++i) {
      if (raw()[size_ + i] != kGuardByte) return false;
    }
    return true;
  }
  uint16_t attrs_size() { return record()->attrs_data_size; }
  // Parses attrs-data like a reader: complete entries only; a truncated one is a failure.
  std::vector<std::pair<int, std::string>> Entries() {
    std::vector<std::pair<int, std::string>> out;
    const uint8_t* data = raw() + kRecordHeaderSize;
    size_t pos = 0;
    const size_t used = attrs_size();
    EXPECT_LE(used, AttrsCapacity(size_));
    while (pos < used) {
      EXPECT_LE(pos + 2, used) << "truncated entry header";
      if (pos + 2 > used) break;
      const size_t len = data[pos + 1];
      EXPECT_LE(pos + 2 + len, used) << "truncated entry value";
      if (pos + 2 + len > used) break;
      out.emplace_back(data[pos], std::string(reinterpret_cast<const char*>(data + pos + 2), len));
      pos += 2 + len;
    }
    return out;
  }
  // What a reader reports: the last entry of each key wins.
  std::map<int, std::string> LastWins() {
    std::map<int, std::string> m;
    for (auto& [k, v] : Entries()) m[k] = v;
    return m;
  }

 private:
  size_t size_;
  std::vector<uint8_t> bytes_;
  size_t offset_ = 0;
};

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// The OTEP's 64-byte test vector: trace all 0x01, span all 0x02, valid=1, attrs (0,"foo"),
// (1,"bar"), attrs_data_size=10.
TEST(RecordAttributes, OtepTestVector) {
  RecordBuffer b(64);
  ThreadContextRecord* r = b.record();
  std::memset(r->trace_id, 0x01, 16);
  std::memset(r->span_id, 0x02, 8);
  r->valid = 1;
  EXPECT_EQ(SetRecordAttribute(r, 64, 0, "foo"), 3);
  EXPECT_EQ(SetRecordAttribute(r, 64, 1, "bar"), 3);
  uint8_t expected[64] = {};
  std::memset(expected, 0x01, 16);
  std::memset(expected + 16, 0x02, 8);
  expected[24] = 1;
  expected[26] = 10;  // little-endian u16 on the hosts we support
  const uint8_t attrs[] = {0, 3, 'f', 'o', 'o', 1, 3, 'b', 'a', 'r'};
  std::memcpy(expected + 28, attrs, sizeof attrs);
  EXPECT_EQ(std::memcmp(b.raw(), expected, 64), 0);
  EXPECT_TRUE(b.GuardIntact());
}

TEST(RecordAttributes, SettingAKeyAgainReplacesItsEntry) {
  RecordBuffer b(64);
  ASSERT_EQ(SetRecordAttribute(b.record(), 64, 0, "GET"), 3);
  ASSERT_EQ(SetRecordAttribute(b.record(), 64, 1, "/api/test"), 9);
  ASSERT_EQ(SetRecordAttribute(b.record(), 64, 0, "POST"), 4);
  EXPECT_EQ(b.Entries(), (std::vector<std::pair<int, std::string>>{{1, "/api/test"}, {0, "POST"}}));
  EXPECT_EQ(b.LastWins(), (std::map<int, std::string>{{0, "POST"}, {1, "/api/test"}}));
  EXPECT_EQ(b.attrs_size(), 2 + 9 + 2 + 4);
  EXPECT_TRUE(RemoveRecordAttribute(b.record(), 64, 1));
  EXPECT_FALSE(RemoveRecordAttribute(b.record(), 64, 1));
  EXPECT_EQ(b.Entries(), (std::vector<std::pair<int, std::string>>{{0, "POST"}}));
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 2, ""), 0);  // empty values are entries too
  EXPECT_EQ(b.LastWins(), (std::map<int, std::string>{{0, "POST"}, {2, ""}}));
}

// For both record sizes: values of 1-, 2-, 3- and 4-byte characters are cut at a character
// boundary, entries never pass the record's end, and the bytes after the record stay untouched.
TEST(RecordAttributes, TruncatesAtUtf8BoundariesWithinTheRecord) {
  for (size_t size : {size_t{64}, size_t{640}}) {
    for (std::string_view ch : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
      RecordBuffer b(size);
      const std::string value = Repeat(ch, 400);  // longer than any record can hold
      const int stored = SetRecordAttribute(b.record(), size, 7, value);
      const size_t room = std::min<size_t>(255, AttrsCapacity(size) - 2);
      const size_t expect = room / ch.size() * ch.size();
      EXPECT_EQ(stored, static_cast<int>(expect)) << size << " " << ch.size();
      const auto entries = b.Entries();
      ASSERT_EQ(entries.size(), 1u);
      EXPECT_EQ(entries[0].second, value.substr(0, expect));
      EXPECT_TRUE(IsValidUtf8(entries[0].second));
      EXPECT_TRUE(b.GuardIntact());
      // Fill what is left with more keys until nothing fits; still inside the record.
      int key = 0;
      while (SetRecordAttribute(b.record(), size, static_cast<uint8_t>(key), value) >= 0) ++key;
      EXPECT_LE(b.attrs_size(), AttrsCapacity(size));
      EXPECT_GE(b.attrs_size(), AttrsCapacity(size) - 1);  // full up to a partial character
      for (auto& [k, v] : b.Entries()) EXPECT_TRUE(IsValidUtf8(v)) << k;
      EXPECT_TRUE(b.GuardIntact());
    }
  }
}

TEST(RecordAttributes, A64ByteRecordHolds34ValueBytes) {
  RecordBuffer b(64);
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 0, std::string(100, 'x')), 34);
  EXPECT_EQ(b.attrs_size(), 36);
  // Full: another key has no room, even for an empty value.
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 1, ""), -1);
  EXPECT_EQ(b.Entries().size(), 1u);
  // The same key can be rewritten (its old entry goes first).
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 0, "short"), 5);
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 1, "fits"), 4);
  EXPECT_TRUE(b.GuardIntact());
}

// A failed set must not leave the key's stale value behind.
TEST(RecordAttributes, FailedSetRemovesTheOldValue) {
  RecordBuffer b(64);
  ASSERT_EQ(SetRecordAttribute(b.record(), 64, 0, std::string(20, 'a')), 20);  // 22 bytes
  ASSERT_EQ(SetRecordAttribute(b.record(), 64, 1, std::string(12, 'b')), 12);  // 14: full
  ASSERT_EQ(b.attrs_size(), 36);
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 2, "c"), -1);
  EXPECT_EQ(b.LastWins().count(2), 0u);
  // Key 1 set again: it is removed first, then 14 bytes are free again.
  EXPECT_EQ(SetRecordAttribute(b.record(), 64, 1, std::string(30, 'd')), 12);
}

TEST(RecordAttributes, ValidityIsPreserved) {
  RecordBuffer b(64);
  b.record()->valid = 1;
  SetRecordAttribute(b.record(), 64, 0, "x");
  EXPECT_EQ(b.record()->valid, 1);
  RemoveRecordAttribute(b.record(), 64, 0);
  EXPECT_EQ(b.record()->valid, 1);
  b.record()->valid = 0;
  SetRecordAttribute(b.record(), 64, 0, "x");
  EXPECT_EQ(b.record()->valid, 0);  // attributes alone never make a record valid
}

// A corrupt attrs_data_size (larger than the record, or ending mid-entry) is clamped and repaired;
// nothing is written past the record.
TEST(RecordAttributes, CorruptSizeIsClampedNeverOverflows) {
  for (size_t size : {size_t{64}, size_t{640}}) {
    RecordBuffer b(size);
    b.record()->attrs_data_size = 0xffff;
    std::memset(b.raw() + kRecordHeaderSize, 0x10, AttrsCapacity(size));  // entries of length 16
    EXPECT_GE(SetRecordAttribute(b.record(), size, 3, std::string(300, 'z')), -1);
    EXPECT_LE(b.attrs_size(), AttrsCapacity(size));
    b.Entries();  // complete entries only (checked inside)
    EXPECT_TRUE(b.GuardIntact());
  }
}

}  // namespace
}  // namespace vtctx
