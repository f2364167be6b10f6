// A MemoryReader over a few byte ranges, for resolver tests without a live process.
#ifndef VTCTX_TESTS_READER_FAKE_MEMORY_H_
#define VTCTX_TESTS_READER_FAKE_MEMORY_H_

#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_format.h"
#include "target/processMemory.h"

namespace vtctx::reader {

class FakeMemory final : public MemoryReader {
 public:
  void Put(uint64_t address, const void* data, size_t size) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) bytes_[address + i] = bytes[i];
  }
  void PutU64(uint64_t address, uint64_t value) { Put(address, &value, sizeof value); }

  absl::Status Read(uint64_t address, void* out, size_t size) override {
    auto* dst = static_cast<uint8_t*>(out);
    for (size_t i = 0; i < size; ++i) {
      auto it = bytes_.find(address + i);
      if (it == bytes_.end()) {
        return absl::OutOfRangeError(absl::StrFormat("unmapped 0x%x", address + i));
      }
      dst[i] = it->second;
    }
    return absl::OkStatus();
  }

 private:
  std::map<uint64_t, uint8_t> bytes_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_TESTS_READER_FAKE_MEMORY_H_
