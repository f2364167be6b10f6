#include "hotspot/hsperfData.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace vtctx::reader {
namespace {

constexpr size_t kPrologueBytes = 32;
constexpr size_t kEntryHeaderBytes = 20;

// Integers in the file's byte order.
class FileInts {
 public:
  FileInts(std::span<const uint8_t> bytes, bool little) : bytes_(bytes), little_(little) {}

  uint64_t Read(size_t offset, size_t width) const {
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) {
      const uint64_t byte = bytes_[offset + (little_ ? width - 1 - i : i)];
      v = (v << 8) | byte;
    }
    return v;
  }
  int32_t I32(size_t offset) const { return static_cast<int32_t>(Read(offset, 4)); }
  int64_t I64(size_t offset) const { return static_cast<int64_t>(Read(offset, 8)); }

 private:
  std::span<const uint8_t> bytes_;
  bool little_;
};

absl::Status Bad(size_t offset, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("hsperfdata: ", what, " at byte ", offset));
}

// Entry `e` (its header at `at`, `length` bytes) into `out`.
absl::Status ParseEntry(std::span<const uint8_t> bytes, const FileInts& ints, size_t at,
                        size_t length, HsPerfData& out) {
  const int32_t name_offset = ints.I32(at + 4);
  const int32_t vector_length = ints.I32(at + 8);
  const uint8_t type = bytes[at + 12];
  const int32_t data_offset = ints.I32(at + 16);
  if (name_offset < static_cast<int32_t>(kEntryHeaderBytes) ||
      static_cast<size_t>(name_offset) >= length || data_offset < 0 ||
      static_cast<size_t>(data_offset) > length || vector_length < 0) {
    return Bad(at, "entry fields out of range");
  }
  const auto* name_begin = reinterpret_cast<const char*>(bytes.data() + at + name_offset);
  const size_t name_room = length - static_cast<size_t>(name_offset);
  const size_t name_length = strnlen(name_begin, name_room);
  if (name_length == name_room) return Bad(at, "entry name not terminated");
  std::string name(name_begin, name_length);
  const size_t data_room = length - static_cast<size_t>(data_offset);
  const uint8_t* data = bytes.data() + at + data_offset;
  if (type == 'B' && vector_length > 0) {
    if (static_cast<size_t>(vector_length) > data_room) return Bad(at, "vector past its entry");
    const auto* text = reinterpret_cast<const char*>(data);
    out.strings[std::move(name)] = std::string(text, strnlen(text, vector_length));
  } else if (type == 'J' && vector_length == 0) {
    if (data_room < 8) return Bad(at, "long past its entry");
    out.longs[std::move(name)] = ints.I64(at + data_offset);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HsPerfData> ParseHsPerfData(std::span<const uint8_t> bytes) {
  static constexpr uint8_t kMagic[] = {0xca, 0xfe, 0xc0, 0xc0};
  if (bytes.size() < kPrologueBytes || std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return Bad(0, "no perf-data magic");
  }
  if (bytes[5] != 2) return Bad(5, absl::StrCat("major version ", bytes[5], ", want 2"));
  if (bytes[7] == 0) return Bad(7, "not accessible yet (the JVM is starting)");
  const FileInts ints(bytes, bytes[4] == 1);
  const int32_t used = ints.I32(8);
  const int32_t entry_offset = ints.I32(24);
  const int32_t entries = ints.I32(28);
  const size_t end = std::min(bytes.size(), static_cast<size_t>(std::max(used, 0)));
  if (entry_offset < static_cast<int32_t>(kPrologueBytes) || entries < 0) {
    return Bad(24, "bad entry table");
  }
  HsPerfData out;
  size_t at = static_cast<size_t>(entry_offset);
  for (int32_t i = 0; i < entries; ++i) {
    if (at + kEntryHeaderBytes > end) return Bad(at, "entry past the used size");
    const int32_t length = ints.I32(at);
    if (length < static_cast<int32_t>(kEntryHeaderBytes) || at + length > end) {
      return Bad(at, "bad entry length");
    }
    if (absl::Status s = ParseEntry(bytes, ints, at, static_cast<size_t>(length), out); !s.ok()) {
      return s;
    }
    at += static_cast<size_t>(length);
  }
  return out;
}

int JavaMajorVersion(const std::string& java_version) {
  std::vector<absl::string_view> parts = absl::StrSplit(java_version, absl::ByAnyChar(".-+_"));
  int major = 0;
  if (parts.empty() || !absl::SimpleAtoi(parts[0], &major)) return 0;
  if (major == 1 && parts.size() > 1 && !absl::SimpleAtoi(parts[1], &major)) return 0;
  return major;
}

}  // namespace vtctx::reader
